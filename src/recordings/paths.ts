/**
 * Where recordings live and what a recording's name may be. A name is a plain file name inside
 * `<data-dir>/recordings`: no separator, no leading dot (hidden files are this layer's own
 * sidecars and temporary files), no `..`, no control character. Every path this layer builds goes
 * through {@link recordingPath}, so no name can reach outside the directory.
 *
 * Names derived from a recording's name, all in the same directory:
 * - `.<name>.json`: its metadata sidecar (./sidecar.ts), written through `.<name>.json.tmp`;
 * - `.<name>.tmp`: the file itself until its first data record is on disk (the recorder then
 *   renames it to `<name>`), so no reader ever sees a recording without data;
 * - `<stem>.events.csv`: a CSV recording's annotations.
 * A file system holds names of at most 255 bytes, and the longest derived name is the name plus
 * {@link DERIVED_NAME_EXTRA_BYTES}; {@link filenameProblem} keeps a recorder's `filename` short
 * enough for all of them, its extension and its segment numbers (`-2`, `-3`, …).
 */
import path from 'node:path';

/** The recordings directory of a data dir. */
export function recordingsDir(dataDir: string): string {
  return path.join(dataDir, 'recordings');
}

/** Longest file name a (Linux) file system holds, in bytes. */
const NAME_MAX_BYTES = 255;
/** Bytes the longest derived name adds: `.` + name + `.json.tmp` (see the file comment). */
export const DERIVED_NAME_EXTRA_BYTES = 10;
/**
 * Longest `filename` of a recorder, UTF-8 bytes. 200 + 4 (`.edf`) + 10 (derived names) leaves
 * 41 bytes of the 255 for segment numbers.
 */
export const MAX_FILENAME_BYTES = 200;

/** The first control character (C0, DEL, C1) of a text, or undefined. */
function controlCharacter(text: string): string | undefined {
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return char;
  }
  return undefined;
}

function codePoint(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** What a recorder's `filename` may be, said once for every refusal. */
export const FILENAME_RULE =
  `a recording's file name is 1 to ${MAX_FILENAME_BYTES} bytes in UTF-8 ` +
  `(the file system allows ${NAME_MAX_BYTES}; the rest is kept for the extension, segment numbers and the hidden ` +
  `metadata and temporary files, which are up to ${DERIVED_NAME_EXTRA_BYTES} bytes longer than the name); ` +
  "it must not start with '.' and must not contain '/', '\\', '..', NUL or any other control character " +
  '(U+0000–U+001F, DEL U+007F, U+0080–U+009F)';

/**
 * Why `filename` (a recorder's config, before `.<format>` is added) cannot name a recording, or
 * undefined when it can. Checked when a stream is created, so nothing fails later for the name.
 */
export function filenameProblem(filename: string): string | undefined {
  const bytes = Buffer.byteLength(filename, 'utf8');
  let problem: string | undefined;
  const control = controlCharacter(filename);
  if (filename.length === 0) problem = 'it is empty';
  else if (bytes > MAX_FILENAME_BYTES) problem = `it is ${bytes} bytes long in UTF-8`;
  else if (filename.startsWith('.')) problem = "it starts with '.'";
  else if (filename.includes('/')) problem = "it contains '/'";
  else if (filename.includes('\\')) problem = "it contains '\\'";
  else if (filename.includes('..')) problem = "it contains '..'";
  else if (control !== undefined) problem = `it contains the control character ${codePoint(control)}`;
  return problem === undefined ? undefined : `the file name is refused: ${problem}; ${FILENAME_RULE}`;
}

/**
 * Why a config's `filename` and `format` cannot make a recording, or undefined: checked when the
 * stream is created (streams/executables/builtins.ts) and again when a recorder starts (a definition
 * stored by an older version).
 */
export function recordingNameProblem(config: {
  filename: string;
  format?: string | undefined;
}): string | undefined {
  const problem = filenameProblem(config.filename);
  if (problem !== undefined) return problem;
  const fromName = formatOfName(config.filename);
  if (fromName !== undefined && config.format !== undefined && fromName !== config.format) {
    return `filename "${config.filename}" names a ${fromName.toUpperCase()} file but format is ${config.format}; change one of them`;
  }
  return undefined;
}

/** True for a plain file name a recording may have (see the file comment). */
export function isPlainName(name: string): boolean {
  return (
    name.length > 0 &&
    Buffer.byteLength(name, 'utf8') <= NAME_MAX_BYTES &&
    !name.startsWith('.') &&
    !name.includes('..') &&
    !name.includes('/') &&
    !name.includes('\\') &&
    controlCharacter(name) === undefined
  );
}

function plain(name: string): string {
  if (!isPlainName(name)) throw new Error(`not a plain recording name: ${JSON.stringify(name)}`);
  return name;
}

/** The file of a recording; throws on a name that is not plain (callers check first). */
export function recordingPath(dir: string, name: string): string {
  return path.join(dir, plain(name));
}

/** The hidden metadata sidecar of a recording: `.<name>.json`. */
export function sidecarPath(dir: string, name: string): string {
  return path.join(dir, `.${plain(name)}.json`);
}

/** The sidecar's temporary file while it is rewritten: `.<name>.json.tmp`. */
export function sidecarTempPath(dir: string, name: string): string {
  return `${sidecarPath(dir, name)}.tmp`;
}

/** The hidden name a recording is written under until its first data record is on disk. */
export function pendingPath(dir: string, name: string): string {
  return path.join(dir, `.${plain(name)}.tmp`);
}

/**
 * True for a temporary file of this layer: a pending recording, a sidecar being rewritten (also
 * the `.<name>.json.<pid>.tmp` of earlier versions).
 */
export function isTemporaryName(entry: string): boolean {
  return entry.startsWith('.') && entry.endsWith('.tmp');
}

/** The annotations file of a CSV recording: `<stem>.events.csv` beside `<stem>.csv`. */
export function eventsNameOf(name: string): string {
  return `${name.replace(/\.csv$/i, '')}.events.csv`;
}

/** The recording format a file name's extension says, if any. */
export function formatOfName(name: string): 'edf' | 'bdf' | 'csv' | undefined {
  const match = /\.(edf|bdf|csv)$/i.exec(name);
  return match === null ? undefined : (match[1]?.toLowerCase() as 'edf' | 'bdf' | 'csv');
}

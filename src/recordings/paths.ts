/**
 * Where recordings live and what a recording's name may be. A name is a plain file name inside
 * `<data-dir>/recordings`: no separator, no leading dot (hidden files are this layer's own
 * sidecars), no `..`, no control character. Every path this layer builds goes through
 * {@link recordingPath}, so no name can reach outside the directory.
 */
import path from 'node:path';

/** The recordings directory of a data dir. */
export function recordingsDir(dataDir: string): string {
  return path.join(dataDir, 'recordings');
}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** True for a plain file name a recording may have (see the file comment). */
export function isPlainName(name: string): boolean {
  return (
    name.length > 0 &&
    name.length <= 255 &&
    !name.startsWith('.') &&
    !name.includes('..') &&
    !name.includes('/') &&
    !name.includes('\\') &&
    !hasControlCharacter(name)
  );
}

/** The file of a recording; throws on a name that is not plain (callers check first). */
export function recordingPath(dir: string, name: string): string {
  if (!isPlainName(name)) throw new Error(`not a plain recording name: ${JSON.stringify(name)}`);
  return path.join(dir, name);
}

/** The hidden metadata sidecar of a recording: `.<name>.json`. */
export function sidecarPath(dir: string, name: string): string {
  if (!isPlainName(name)) throw new Error(`not a plain recording name: ${JSON.stringify(name)}`);
  return path.join(dir, `.${name}.json`);
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

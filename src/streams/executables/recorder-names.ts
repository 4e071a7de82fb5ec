/**
 * The recorder's file names: the name and format a config gives (`filename` plus `.<format>` when
 * it lacks that extension; `format` from the extension, else `edf`), and the next free segment
 * name `<stem>-<k>.<ext>` when a recording goes on in a new file (./recorder.ts).
 */
import { existsSync } from 'node:fs';
import { formatOfName, pendingPath, recordingNameProblem, sidecarPath } from '../../recordings/paths.js';
import type { RecordingFormat } from '../../recordings/sidecar.js';
import { FatalNodeError } from '../runtime/node-errors.js';

/** The file name and format of a recorder's config (`filename`, `format`). */
export function recordingName(config: { filename: string; format?: RecordingFormat | undefined }): {
  name: string;
  format: RecordingFormat;
} {
  const problem = recordingNameProblem(config);
  // A restart cannot cure a name: the node stops for good.
  if (problem !== undefined) throw new FatalNodeError(`${problem}.`);
  const fromName = formatOfName(config.filename);
  const format = config.format ?? fromName ?? 'edf';
  const name = fromName === undefined ? `${config.filename}.${format}` : config.filename;
  return { name, format };
}

/** True when a recording, its sidecar or its pending file has this name. */
function nameTaken(dir: string, name: string): boolean {
  return (
    existsSync(`${dir}/${name}`) || existsSync(sidecarPath(dir, name)) || existsSync(pendingPath(dir, name))
  );
}

/** `<stem>-<k>.<ext>` for k = 2, 3, …: the first name not taken. */
export function nextSegmentName(dir: string, name: string): string {
  const dot = name.lastIndexOf('.');
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const ext = dot > 0 ? name.slice(dot) : '';
  for (let k = 2; ; k++) {
    const candidate = `${stem}-${k}${ext}`;
    if (!nameTaken(dir, candidate)) return candidate;
  }
}

/**
 * The recordings API (docs/recording.md §Recordings API): list, download and delete
 * the files recorders wrote to `<data-dir>/recordings`. Names are checked to be plain file names
 * before any file-system call, and only regular files of that one directory are served (a
 * symbolic link is not followed), so no request reaches a file outside it.
 */
import { createReadStream, lstatSync, rmSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { HeadsetdError } from '../core/errors.js';
import {
  eventsNameOf,
  isPlainName,
  listRecordings,
  readSidecar,
  recordingPath,
  recordingsDir,
  removeSidecar,
} from '../recordings/index.js';
import { errorResponses, Success, textOrFileResponse } from '../platform/schemas/responses.js';
import { RecordingSchema } from '../platform/schemas/recordings.js';

/** What {@link recordingsPlugin} needs from the service. */
export interface RecordingsPluginOptions {
  /** The service's data directory: recordings are in `<dataDir>/recordings`. */
  dataDir: string;
  /**
   * Names of the recordings being written now: the `info.recording` of every recorder node whose
   * state is `initialized`, `running` or `paused` (a stopped node's status keeps its last info).
   * Read at each DELETE.
   */
  activeRecordings: () => ReadonlySet<string>;
  /** OpenAPI tag of the routes (default `recordings`). */
  tag?: string;
}

const ListResponse = Type.Object({ success: Type.Literal(true), recordings: Type.Array(RecordingSchema) });
const NameParams = Type.Object({ name: Type.String({ description: 'The recording file name.' }) });

type WithName = { Params: { name: string } };

/** A plain name, or 400 before anything touches the file system. */
function checkedName(name: string): string {
  if (!isPlainName(name)) {
    throw new HeadsetdError(
      'invalid_request',
      'A recording name is a plain file name: no path separator, no leading dot, no "..".',
      { path: '/name' },
    );
  }
  return name;
}

/** lstat of a recording that must exist as a regular file; else recording_not_found. */
function existingFile(dir: string, name: string): { path: string; size: number } {
  const path = recordingPath(dir, name);
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    stat = undefined;
  }
  if (stat?.isFile() !== true) {
    throw new HeadsetdError('recording_not_found', `No recording is named "${name}".`, { name });
  }
  return { path, size: stat.size };
}

/** RFC 6266: an ASCII fallback name plus the exact name in RFC 5987 encoding. */
function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** Registers GET /system/recordings, GET and DELETE /system/recordings/{name}. */
export function recordingsPlugin(app: FastifyInstance, options: RecordingsPluginOptions): void {
  const dir = recordingsDir(options.dataDir);
  const tags = [options.tag ?? 'recordings'];

  app.get(
    '/system/recordings',
    {
      schema: {
        tags,
        summary: 'List the recordings',
        response: { 200: ListResponse },
      },
    },
    async (request) => ({
      success: true,
      recordings: listRecordings(dir, (name, reason) => {
        request.log.warn({ recording: name, reason }, 'recordings: file skipped in the listing');
      }),
    }),
  );

  app.get<WithName>(
    '/system/recordings/:name',
    {
      schema: {
        tags,
        summary: 'Download a recording (EDF/BDF as application/octet-stream, CSV as text/csv)',
        params: NameParams,
        produces: ['application/octet-stream', 'text/csv'],
        response: {
          200: textOrFileResponse('The file, as an attachment.', ['application/octet-stream', 'text/csv']),
          ...errorResponses(400, 404),
        },
      },
    },
    async (request, reply) => {
      const name = checkedName(request.params.name);
      const file = existingFile(dir, name);
      const csv = /\.csv$/i.test(name) || readSidecar(dir, name)?.format === 'csv';
      return reply
        .header('Content-Type', csv ? 'text/csv; charset=utf-8' : 'application/octet-stream')
        .header('Content-Disposition', contentDisposition(name))
        .header('Content-Length', String(file.size))
        .send(createReadStream(file.path));
    },
  );

  app.delete<WithName>(
    '/system/recordings/:name',
    {
      schema: {
        tags,
        summary: 'Delete a recording (and its metadata and events files); 409 while it is being written',
        params: NameParams,
        response: { 200: Success, ...errorResponses(400, 404, 409) },
      },
    },
    async (request) => {
      const name = checkedName(request.params.name);
      if (options.activeRecordings().has(name)) {
        throw new HeadsetdError(
          'invalid_state',
          `The recording "${name}" is being written; stop its recorder (or stream) first.`,
          { name, state: 'recording' },
        );
      }
      const file = existingFile(dir, name);
      const meta = readSidecar(dir, name);
      rmSync(file.path, { force: true });
      removeSidecar(dir, name);
      if (meta?.eventsFile !== undefined && isPlainName(meta.eventsFile)) {
        rmSync(recordingPath(dir, meta.eventsFile), { force: true });
      } else if (/\.csv$/i.test(name)) {
        rmSync(recordingPath(dir, eventsNameOf(name)), { force: true });
      }
      return { success: true };
    },
  );
}

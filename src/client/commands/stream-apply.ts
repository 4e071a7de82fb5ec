/**
 * `headsetd streams apply -f FILE`: creates the stream a YAML or JSON document defines, or
 * replaces its definition when a stream with its id exists (a running one is edited live), as
 * `kubectl apply` does. The file is sent as it is, so the service's errors keep their line and
 * column.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command, Invocation } from '../command.js';
import { stringOption } from '../command.js';
import { ApiError, UsageError } from '../failures.js';
import type { ApiClient } from '../http.js';
import { streamPath } from './stream-path.js';
import { errorMessage } from '../../core/error-message.js';

function readSource(file: string, { readStdin, resolvePath }: Invocation): string {
  try {
    return file === '-' ? readStdin() : readFileSync(resolvePath(file), 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file === '-' ? 'standard input' : file}: ${errorMessage(error)}`);
  }
}

/** The document's id when it parses and has one; the service reports every other case. */
async function documentId(text: string): Promise<string | undefined> {
  // The YAML parser is loaded by this command only: it is most of the client's code.
  const { parseYamlText } = await import('../../platform/schemas/yaml-text.js');
  try {
    const document = parseYamlText(text) as { id?: unknown } | null;
    return typeof document?.id === 'string' ? document.id : undefined;
  } catch {
    return undefined;
  }
}

async function exists(client: ApiClient, id: string): Promise<boolean> {
  try {
    await client.get(streamPath(id));
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'stream_not_found') return false;
    // A malformed id and the like: let the create answer it, with the pointer into the document.
    if (error instanceof ApiError && error.status < 500) return false;
    throw error;
  }
}

export const applyCommand: Command = {
  name: 'streams apply',
  args: '-f FILE',
  summary: 'Create a stream from a YAML or JSON document, or update it when its id exists.',
  help: `Options:
  -f, --file FILE   the stream document (YAML, or JSON by its .json extension); - reads stdin
Prints 'stream ID created' or 'stream ID updated' (a running stream is edited live: unchanged
nodes keep running). With --json: {id, action: "created" or "updated", success: true}.
An invalid document fails with the service's message and the pointer to the field (exit 1).`,
  options: { file: { type: 'string', short: 'f' } },
  async run(invocation) {
    const { client, out, values } = invocation;
    const file = stringOption(values, 'file');
    if (file === undefined)
      throw new UsageError("streams apply needs -f FILE. Run 'headsetd streams apply --help' for usage.");
    const text = readSource(file, invocation);
    const contentType = path.extname(file).toLowerCase() === '.json' ? 'application/json' : 'text/yaml';
    const id = await documentId(text);
    const update = id !== undefined && (await exists(client, id));
    const answer = update
      ? await client.request<{ id: string }>('PUT', streamPath(id), { text, contentType })
      : await client.post<{ id: string }>('/stream/streams', { text, contentType });
    const action = update ? 'updated' : 'created';
    if (out.json) {
      out.document({ id: answer.id, action, success: true });
      return 0;
    }
    out.line(`stream ${answer.id} ${action}`);
    return 0;
  },
};

/**
 * The client's WebSocket connections to the service's live paths (/system/events,
 * /system/sensors/eeg/stream), with the same failures as its HTTP requests: a refused upgrade is
 * the service's envelope ({@link ApiError}), no answer is a {@link ConnectionError}.
 */
import { ApiError, ConnectionError, envelopeOf } from './failures.js';
import type { ApiClient } from './http.js';

export interface LiveSocket {
  /** Each JSON text message, parsed, until the socket closes or `close` is called. */
  messages(): AsyncIterable<unknown>;
  close(): void;
}

/** Opens a WebSocket on `path` and resolves once it is open. */
export async function openSocket(client: ApiClient, path: string, signal?: AbortSignal): Promise<LiveSocket> {
  // Loaded by the commands that open a socket only: ws loads TLS and zlib, which the others never use.
  const { default: WebSocket } = await import('ws');
  const url = client.url(path);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const socket = new WebSocket(url, { headers: client.headers() });
  const queue: unknown[] = [];
  let wake: (() => void) | undefined;
  let ended: Error | null | undefined;
  const finish = (error: Error | null): void => {
    if (ended === undefined) ended = error;
    wake?.();
  };
  socket.on('message', (data, isBinary) => {
    if (isBinary) return;
    try {
      queue.push(JSON.parse((data as Buffer).toString('utf8')));
    } catch {
      return;
    }
    wake?.();
  });
  socket.on('close', (code, reason) => {
    // 1000 and 1001 are ends the service chose (it is stopping); anything else is a lost connection.
    finish(
      code === 1000 || code === 1001 || code === 1005
        ? null
        : new ConnectionError(
            `the connection to ${client.connection.url} was lost (${String(code)} ${String(reason)})`,
          ),
    );
  });
  const onAbort = (): void => {
    socket.terminate();
  };
  signal?.addEventListener('abort', onAbort, { once: true });

  const live: LiveSocket = {
    async *messages() {
      for (;;) {
        if (queue.length > 0) {
          yield queue.shift();
          continue;
        }
        if (ended !== undefined) {
          if (ended !== null) throw ended;
          return;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    },
    close() {
      signal?.removeEventListener('abort', onAbort);
      finish(null);
      socket.close(1000);
    },
  };

  return new Promise<LiveSocket>((resolve, reject) => {
    socket.once('open', () => {
      resolve(live);
    });
    socket.once('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => {
        const status = response.statusCode ?? 0;
        reject(new ApiError(status, envelopeOf(status, text)));
        socket.terminate();
      });
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      reject(
        new ConnectionError(
          `cannot reach ${client.connection.url}: ${error.code === 'ECONNREFUSED' ? 'connection refused; is headsetd running there? (headsetd serve)' : error.message}`,
        ),
      );
    });
  });
}

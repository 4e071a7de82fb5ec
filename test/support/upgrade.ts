/**
 * A WebSocket upgrade attempt with chosen headers, telling a refusal (its status, content type and
 * parsed body) from an opened socket.
 */
import WebSocket from 'ws';

export type UpgradeOutcome =
  | { kind: 'refused'; status: number; contentType: string | undefined; body: unknown }
  | { kind: 'open'; socket: WebSocket };

export function tryUpgrade(url: string, headers: Record<string, string> = {}): Promise<UpgradeOutcome> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.once('unexpected-response', (_request, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // Left as text: the caller's assertion shows it.
        }
        resolve({
          kind: 'refused',
          status: response.statusCode ?? 0,
          contentType: response.headers['content-type'],
          body,
        });
        socket.terminate();
      });
    });
    socket.once('open', () => {
      resolve({ kind: 'open', socket });
    });
    socket.on('error', (error) => {
      reject(error);
    });
  });
}

/** The next message of an open socket, as text. */
export function nextMessage(socket: WebSocket): Promise<string> {
  return new Promise((resolve) => {
    socket.once('message', (data: Buffer) => {
      resolve(data.toString('utf8'));
    });
  });
}

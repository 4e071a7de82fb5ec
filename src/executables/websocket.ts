/**
 * The `websocket` built-in: serves every frame to any number of WebSocket clients on its own port
 * (API-NOTES.md §Built-in executables). Config: `port` (0 = any free port; the bound port is shown
 * in the node's status info as `port`), `host` (default 127.0.0.1), `format` (`json`: one text
 * message per frame in the JSON form of frame.ts; `binary`: one binary message per frame in the
 * layout of runtime/frame-binary.ts).
 *
 * Each frame is encoded once and the same payload is sent to every client. A client's send queue
 * is bounded by {@link CLIENT_BUFFER_LIMIT_BYTES} of `bufferedAmount` (bytes accepted by `send` but
 * not yet written to the socket): while a client is over it, frames are skipped for that client
 * only and counted in the node's `framesDropped` (one per client and frame). The stream and the
 * other clients never wait for a slow client. Clients are not expected to send anything; a message
 * of theirs is ignored (and a large one closes their connection).
 */
import { type WebSocket, WebSocketServer } from 'ws';
import { frameToJson } from '../runtime/frame.js';
import type { Frame } from '../runtime/frame.js';
import { encodeFrameBinary } from '../runtime/frame-binary.js';
import type { NodeContext, NodeFactory, NodeInstance } from '../runtime/node.js';
import { NodeConfigError } from '../runtime/node-errors.js';
import type { RuntimeNodeContext } from '../runtime/runner-support.js';

export const DEFAULT_WEBSOCKET_HOST = '127.0.0.1';
/** About a second of a 64-channel 2 kHz stream in JSON: a client further behind loses frames. */
export const CLIENT_BUFFER_LIMIT_BYTES = 1024 * 1024;
/** Close code of a node that stops (RFC 6455 "going away"), and its reason. */
export const STOP_CLOSE_CODE = 1001;
export const STOP_CLOSE_REASON = 'stream node stopped';
/** How long a stop waits for clients to answer the close frame before cutting them off, ms. */
export const CLOSE_GRACE_MS = 1000;

export interface WebSocketOutputConfig {
  port: number;
  host?: string;
  format?: 'json' | 'binary';
}

/** The reason a listen failed, for a person. */
export function listenErrorMessage(error: NodeJS.ErrnoException, host: string, port: number): string {
  switch (error.code) {
    case 'EADDRINUSE':
      return `port ${port} is already in use`;
    case 'EACCES':
      return `port ${port} on ${host} may not be bound by this service (permission denied)`;
    case 'EADDRNOTAVAIL':
      return `host ${host} is not an address of this machine`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host ${host} cannot be resolved`;
    default:
      return `cannot listen on ${host}:${port}: ${error.message}`;
  }
}

/** A listen failure as a node config error: the API then points at the `port` or `host` field. */
export function listenError(error: NodeJS.ErrnoException, host: string, port: number): NodeConfigError {
  const message = listenErrorMessage(error, host, port);
  const aboutHost = ['EADDRNOTAVAIL', 'ENOTFOUND', 'EAI_AGAIN'].includes(error.code ?? '');
  return aboutHost ? new NodeConfigError(message, 'host') : new NodeConfigError(message, 'port', port);
}

/** Closes every client with 1001 and a reason; those that do not answer in time are cut off. */
async function closeClients(clients: readonly WebSocket[]): Promise<void> {
  await Promise.all(
    clients.map(
      (client) =>
        new Promise<void>((resolve) => {
          if (client.readyState === client.CLOSED) {
            resolve();
            return;
          }
          const timer = setTimeout(() => {
            client.terminate();
            resolve();
          }, CLOSE_GRACE_MS);
          client.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          client.close(STOP_CLOSE_CODE, STOP_CLOSE_REASON);
        }),
    ),
  );
}

class WebSocketOutput implements NodeInstance {
  private server: WebSocketServer | undefined;
  private readonly clients = new Set<WebSocket>();
  private readonly host: string;
  private readonly binary: boolean;

  constructor(
    private readonly context: NodeContext,
    private readonly config: WebSocketOutputConfig,
  ) {
    this.host = config.host ?? DEFAULT_WEBSOCKET_HOST;
    this.binary = config.format === 'binary';
  }

  async start(): Promise<void> {
    const server = new WebSocketServer({
      port: this.config.port,
      host: this.host,
      perMessageDeflate: false,
      maxPayload: 64 * 1024,
    });
    await new Promise<void>((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException) => {
        server.off('listening', onListening);
        server.close();
        reject(listenError(error, this.host, this.config.port));
      };
      const onListening = () => {
        server.off('error', onError);
        resolve();
      };
      server.once('error', onError);
      server.once('listening', onListening);
    });
    this.server = server;
    server.on('error', (error) => {
      this.context.fail(error);
    });
    server.on('connection', (socket) => {
      this.clients.add(socket);
      this.context.log(`client connected (${this.clients.size} now)`);
      this.context.setInfo({ clients: this.clients.size });
      socket.on('close', () => {
        this.clients.delete(socket);
        this.context.setInfo({ clients: this.clients.size });
      });
      socket.on('error', () => {
        socket.terminate();
      });
    });
    const address = server.address();
    const port = address !== null && typeof address === 'object' ? address.port : this.config.port;
    this.context.setInfo({ port, host: this.host, format: this.binary ? 'binary' : 'json', clients: 0 });
    this.context.log(`listening on ws://${this.host}:${port}/`);
  }

  onFrame(_port: string, frame: Frame): void {
    if (this.clients.size === 0) return;
    let payload: string | Uint8Array | undefined;
    let dropped = 0;
    for (const client of this.clients) {
      if (client.readyState !== client.OPEN) continue;
      if (client.bufferedAmount > CLIENT_BUFFER_LIMIT_BYTES) {
        dropped++;
        continue;
      }
      payload ??= this.binary ? encodeFrameBinary(frame) : JSON.stringify(frameToJson(frame));
      client.send(payload);
    }
    if (dropped > 0) (this.context as Partial<RuntimeNodeContext>).countDropped?.(dropped);
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    // New clients are refused first; the connected ones get a close frame, not a cut, so they can
    // tell a stopped stream (1001) from a network failure (1006).
    const serverClosed = new Promise<void>((resolve) => {
      if (server === undefined) resolve();
      else
        server.close(() => {
          resolve();
        });
    });
    await closeClients([...this.clients]);
    this.clients.clear();
    await serverClosed;
  }
}

export const createWebSocketOutput: NodeFactory = (context) =>
  new WebSocketOutput(context, context.config as unknown as WebSocketOutputConfig);

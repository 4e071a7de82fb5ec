/**
 * The `websocket` built-in: serves every frame to any number of WebSocket clients on its own port
 * (docs/api.md §Built-in executables). Config: `port` (0 = any free port; the bound port is shown
 * in the node's status info as `port`), `host` (default 127.0.0.1), `format` (`json`: one text
 * message per frame in the JSON form of frame.ts; `binary`: one binary message per frame in the
 * layout of core/frame-binary.ts), `clientBufferBytes` (the bound below).
 *
 * Each frame is encoded once and the same payload is sent to every client (a JSON frame is framed
 * once too and written to each client's connection in one write: SocketFanout.sendText). A client's send queue
 * (the one fan-out, streams/runtime/socket-fanout.ts) is bounded by `clientBufferBytes` (default
 * {@link CLIENT_BUFFER_LIMIT_BYTES}) of `bufferedAmount`
 * (bytes accepted by `send` but not yet written to the socket): while a client is over it, frames
 * are skipped for that client only and counted in the node's `framesDropped` (one per client and
 * frame), and the client is counted in the status info's `slowClients`. The stream and the
 * other clients never wait for a slow client, and the memory a client holds is bounded by it.
 * When such a client is sent a frame again, the status info's `droppedByClient` (its address and
 * port as key) gives the frames it has lost so far: the gaps in `seq` it finds in what it reads,
 * so a client can tell the frames skipped for it from any lost otherwise (there are none). Clients
 * are not expected to send anything; a message of theirs is ignored (and a large one closes their
 * connection).
 *
 * The port applies the API's rules to every request (platform/security/access.ts, docs/security.md): a
 * foreign Host or Origin, a browser's request from another site, or a missing token is answered
 * with the error envelope (403 or 401) and never upgraded, so no web page reads the EEG here. The
 * token is required when the service requires it, and whenever the node itself listens beyond
 * loopback.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { HeadsetdError } from '../../core/errors.js';
import { frameJsonText } from '../../core/frame.js';
import type { Frame } from '../../core/frame.js';
import { encodeFrameBinary } from '../../core/frame-binary.js';
import type { NodeContext, NodeFactory, NodeInstance } from '../../core/node.js';
import { NodeConfigError } from '../runtime/node-errors.js';
import { type AccessPolicy, LOOPBACK_ONLY } from '../../core/access-policy.js';
import { accessRefusal, isLoopbackName } from '../../platform/security/access.js';
import { headersTimeouts } from '../../platform/security/http-timeouts.js';
import { refuseUpgrade, sendErrorResponse } from '../../platform/http/answers.js';
import { ensureToken, tokenPath } from '../../platform/security/token.js';
import { CLIENT_SEND_LIMIT_BYTES, GOING_AWAY, SocketFanout } from '../runtime/socket-fanout.js';

export const DEFAULT_WEBSOCKET_HOST = '127.0.0.1';
/** About a second of a 64-channel 2 kHz stream in JSON: a client further behind loses frames. */
export const CLIENT_BUFFER_LIMIT_BYTES = CLIENT_SEND_LIMIT_BYTES;
/** Close code of a node that stops (RFC 6455 "going away"), and its reason. */
export const STOP_CLOSE_CODE = GOING_AWAY;
export const STOP_CLOSE_REASON = 'stream node stopped';
/** How long a stop waits for clients to answer the close frame before cutting them off, ms. */
export const CLOSE_GRACE_MS = 1000;

export interface WebSocketOutputConfig {
  port: number;
  host?: string;
  format?: 'json' | 'binary';
  clientBufferBytes?: number;
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

/** A client's address and port as its key in `droppedByClient` (an IPv6 address in brackets). */
function clientName(request: IncomingMessage): string {
  const address = request.socket.remoteAddress ?? 'unknown';
  const port = request.socket.remotePort ?? 0;
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
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
  private server: Server | undefined;
  private sockets: WebSocketServer | undefined;
  private readonly clients: SocketFanout<WebSocket>;
  private readonly host: string;
  private readonly binary: boolean;
  private readonly bufferLimit: number;
  /** Clients over the limit at the last frame: reported only when it changes (status info). */
  private slowClients = 0;
  /** Each client's address and port, the key of its count in `droppedByClient`. */
  private readonly names = new Map<WebSocket, string>();
  /** Frames lost by each client that lost any, as of the last frame it was sent (status info). */
  private droppedByClient: Record<string, number> = {};
  private boundPort = 0;

  constructor(
    private readonly context: NodeContext,
    private readonly config: WebSocketOutputConfig,
  ) {
    this.host = config.host ?? DEFAULT_WEBSOCKET_HOST;
    this.binary = config.format === 'binary';
    this.bufferLimit = config.clientBufferBytes ?? CLIENT_BUFFER_LIMIT_BYTES;
    this.clients = new SocketFanout<WebSocket>({
      limitBytes: this.bufferLimit,
      onCaughtUp: (socket, lost) => {
        const name = this.names.get(socket);
        if (name === undefined) return;
        this.droppedByClient = { ...this.droppedByClient, [name]: lost };
        this.context.setInfo({ droppedByClient: this.droppedByClient });
      },
    });
  }

  /** The service's rules; beyond loopback the node requires the token even if the service does not. */
  private policy(): AccessPolicy {
    const service = this.context.access ?? LOOPBACK_ONLY;
    // The address this node listens on is a name of the device too (rule 1).
    const policy = { ...service, listenAddresses: [...(service.listenAddresses ?? []), this.host] };
    if (policy.token !== undefined || isLoopbackName(this.host)) return policy;
    return {
      ...policy,
      token: ensureToken(this.context.dataDir).token,
      tokenFile: tokenPath(this.context.dataDir),
    };
  }

  async start(): Promise<void> {
    const policy = this.policy();
    const sockets = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 64 * 1024 });
    const server = createServer(headersTimeouts(), (request, response) => {
      this.onPlainRequest(request, response, policy);
    });
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      const refusal = accessRefusal(
        { headers: request.headers, url: request.url ?? '/', port: this.boundPort },
        policy,
      );
      if (refusal !== undefined) {
        refuseUpgrade(socket, refusal);
        return;
      }
      sockets.handleUpgrade(request, socket, head, (client) => {
        this.onConnection(client, clientName(request));
      });
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
      server.listen(this.config.port, this.host);
    });
    this.server = server;
    this.sockets = sockets;
    server.on('error', (error) => {
      this.context.fail(error);
    });
    const address = server.address();
    this.boundPort = address !== null && typeof address === 'object' ? address.port : this.config.port;
    this.context.setInfo({
      port: this.boundPort,
      host: this.host,
      format: this.binary ? 'binary' : 'json',
      clients: 0,
      clientBufferBytes: this.bufferLimit,
      slowClients: 0,
      droppedByClient: {},
    });
    const token = policy.token === undefined ? '' : ' (token required)';
    this.context.log(`listening on ws://${this.host}:${this.boundPort}/${token}`);
  }

  /** A request that is no upgrade: refused like an upgrade would be, else told to upgrade. */
  private onPlainRequest(request: IncomingMessage, response: ServerResponse, policy: AccessPolicy): void {
    const refusal =
      accessRefusal({ headers: request.headers, url: request.url ?? '/', port: this.boundPort }, policy) ??
      new HeadsetdError(
        'invalid_request',
        `This port serves a WebSocket of node ${this.context.nodeId}: connect with an upgrade request (for example: websocat ws://127.0.0.1:${this.boundPort}/).`,
      );
    sendErrorResponse(response, refusal);
  }

  private onConnection(socket: WebSocket, name: string): void {
    this.clients.add(socket);
    this.names.set(socket, name);
    this.context.log(`client connected (${this.clients.size} now)`);
    this.context.setInfo({ clients: this.clients.size });
    socket.on('close', () => {
      this.names.delete(socket);
      if (name in this.droppedByClient) {
        const { [name]: _gone, ...rest } = this.droppedByClient;
        this.droppedByClient = rest;
        this.context.setInfo({ clients: this.clients.size, droppedByClient: rest });
      } else this.context.setInfo({ clients: this.clients.size });
    });
    socket.on('error', () => {
      socket.terminate();
    });
  }

  onFrame(_port: string, frame: Frame): void {
    if (this.clients.size === 0) return;
    const dropped = this.binary
      ? this.clients.sendPayload(() => encodeFrameBinary(frame))
      : this.clients.sendText(() => frameJsonText(frame));
    if (dropped > 0) this.context.countDropped(dropped);
    if (dropped !== this.slowClients) {
      this.slowClients = dropped;
      this.context.setInfo({ slowClients: dropped });
    }
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    const sockets = this.sockets;
    this.sockets = undefined;
    // New clients are refused first; the connected ones get a close frame, not a cut, so they can
    // tell a stopped stream (1001) from a network failure (1006).
    const serverClosed = new Promise<void>((resolve) => {
      if (server === undefined) resolve();
      else
        server.close(() => {
          resolve();
        });
    });
    const clients = this.clients.sockets();
    for (const client of clients) this.clients.remove(client);
    await closeClients(clients);
    sockets?.close();
    // Plain requests kept alive would hold the port open.
    server?.closeAllConnections();
    await serverClosed;
  }
}

export const createWebSocketOutput: NodeFactory = (context) =>
  new WebSocketOutput(context, context.config as unknown as WebSocketOutputConfig);

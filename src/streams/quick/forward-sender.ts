/**
 * POST /stream/{streamId}/pipe: a quick stream's frames forwarded to another headsetd's ingest
 * WebSocket (`ws://host:port/stream/{targetStreamId}/ingest`), one JSON text message per frame
 * (docs/api.md §Frames). The connection is re-made after any loss with exponential backoff
 * (250 ms doubling to 10 s, with jitter); frames that arrive while it is down wait in a bounded
 * queue (the oldest are dropped, counted), and while it is up the connection is a fan-out of one
 * (streams/runtime/socket-fanout.ts): a peer that reads too slowly loses frames (counted) once its unsent
 * bytes pass the limit, so the stream is never slowed.
 */
import WebSocket from 'ws';
import { CLIENT_SEND_LIMIT_BYTES, SocketFanout } from '../runtime/socket-fanout.js';

export interface ForwardTarget {
  host: string;
  port: number;
  streamId: string;
}

export interface ForwardSenderOptions {
  target: ForwardTarget;
  /** The receiving service's token, sent as `?token=` (its WebSocket upgrades take it there). */
  token?: string;
  /** Sent as `metadata` with the first frame of every connection (includeChannelMetadata). */
  metadata?: Record<string, unknown>;
  /** Frames kept while disconnected (default 256, about 2.5 s of 10 ms frames). */
  queueLimit?: number;
  /** Unsent bytes above which frames are dropped while connected (default 1 MiB). */
  sendLimitBytes?: number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
}

export type ForwardState = 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface ForwardStatus {
  target: ForwardTarget;
  url: string;
  state: ForwardState;
  framesSent: number;
  framesDropped: number;
  queued: number;
  /** Connections made after the first. */
  reconnects: number;
  /** Why the last connection failed or ended, for a person; null when none did. */
  lastError: string | null;
}

const DEFAULT_QUEUE_LIMIT = 256;

function urlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** The ingest URL of a target, without the token. */
export function ingestUrl(target: ForwardTarget): string {
  return `ws://${urlHost(target.host)}:${target.port}/stream/${encodeURIComponent(target.streamId)}/ingest`;
}

export class ForwardSender {
  private socket: WebSocket | undefined;
  private readonly queue: string[] = [];
  private state: ForwardState = 'connecting';
  private framesSent = 0;
  private framesDropped = 0;
  private connections = 0;
  private lastError: string | null = null;
  private backoffMs: number;
  private timer: NodeJS.Timeout | undefined;
  /** The metadata goes with the first frame of each connection. */
  private metadataPending = false;
  /** The open connection, if any: a fan-out of one, with the slow-client policy of every socket. */
  private readonly peer: SocketFanout<WebSocket>;

  constructor(private readonly options: ForwardSenderOptions) {
    this.backoffMs = options.initialBackoffMs ?? 250;
    this.peer = new SocketFanout({ limitBytes: options.sendLimitBytes ?? CLIENT_SEND_LIMIT_BYTES });
    this.connect();
  }

  /**
   * Forwards one frame's JSON text (docs/api.md §Frames), as the frame's one encoder wrote it
   * (core/frame.ts `frameJsonText`): the text the quick stream's own clients receive.
   */
  send(frameText: string): void {
    if (this.state === 'closed') return;
    if (this.socket?.readyState === WebSocket.OPEN) {
      // sendPayload, not sendText: this end is a client, whose frames `ws` must mask (RFC 6455 §5.3).
      const skipped = this.peer.sendPayload(() => this.text(frameText));
      if (skipped > 0) this.framesDropped += skipped;
      else this.framesSent++;
      return;
    }
    this.queue.push(frameText);
    if (this.queue.length > (this.options.queueLimit ?? DEFAULT_QUEUE_LIMIT)) {
      this.queue.shift();
      this.framesDropped++;
    }
  }

  status(): ForwardStatus {
    return {
      target: { ...this.options.target },
      url: ingestUrl(this.options.target),
      state: this.state,
      framesSent: this.framesSent,
      framesDropped: this.framesDropped,
      queued: this.queue.length,
      reconnects: Math.max(0, this.connections - 1),
      lastError: this.lastError,
    };
  }

  /** Ends the forward for good: no reconnection; queued frames are discarded. */
  close(): void {
    this.state = 'closed';
    clearTimeout(this.timer);
    this.queue.length = 0;
    const socket = this.socket;
    this.socket = undefined;
    if (socket !== undefined) {
      if (socket.readyState === WebSocket.CONNECTING) socket.terminate();
      else socket.close(1000, 'the pipe was closed');
    }
  }

  /**
   * A frame's text; the first of a connection carries the metadata, as the frame object's last
   * member (the text of `JSON.stringify({...frame, metadata})`, without parsing the frame again).
   */
  private text(frameText: string): string {
    const metadata = this.metadataPending ? this.options.metadata : undefined;
    this.metadataPending = false;
    if (metadata === undefined) return frameText;
    const members = frameText.slice(1, -1);
    return `{${members}${members.length > 0 ? ',' : ''}"metadata":${JSON.stringify(metadata)}}`;
  }

  /** Frames queued while the connection was down: sent as soon as it is up. */
  private transmit(socket: WebSocket, frameText: string): void {
    socket.send(this.text(frameText));
    this.framesSent++;
  }

  private connect(): void {
    if (this.state === 'closed') return;
    const base = ingestUrl(this.options.target);
    const url =
      this.options.token === undefined ? base : `${base}?token=${encodeURIComponent(this.options.token)}`;
    const socket = new WebSocket(url, { handshakeTimeout: 5000, perMessageDeflate: false });
    this.socket = socket;
    socket.on('open', () => {
      if (this.socket !== socket) return;
      this.connections++;
      this.state = 'open';
      this.backoffMs = this.options.initialBackoffMs ?? 250;
      this.metadataPending = this.options.metadata !== undefined;
      this.peer.add(socket);
      for (const text of this.queue.splice(0)) this.transmit(socket, text);
    });
    let refused = false;
    socket.on('unexpected-response', (_request, response) => {
      refused = true;
      this.lastError = `the target answered HTTP ${response.statusCode ?? '?'} instead of accepting the WebSocket`;
      socket.terminate();
    });
    socket.on('error', (error) => {
      if (this.socket === socket && !refused) this.lastError = error.message;
    });
    socket.on('close', (code, reason) => {
      if (this.socket !== socket || this.state === 'closed') return;
      if (code !== 1006 || reason.length > 0) {
        this.lastError = `the target closed the connection (${code}${reason.length > 0 ? `: ${reason.toString()}` : ''})`;
      }
      this.socket = undefined;
      this.state = 'reconnecting';
      this.scheduleReconnect();
    });
  }

  private scheduleReconnect(): void {
    const delay = this.backoffMs * (0.8 + Math.random() * 0.4);
    this.backoffMs = Math.min(this.backoffMs * 2, this.options.maxBackoffMs ?? 10_000);
    this.timer = setTimeout(() => {
      this.connect();
    }, delay);
    this.timer.unref();
  }
}

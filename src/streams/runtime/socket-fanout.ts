/**
 * The one fan-out of messages to WebSocket clients: the `websocket` built-in's frames, the
 * service's live sockets (/system/events, the EEG and impedance streams, a quick stream's clients)
 * and the forward of a quick stream to another headsetd (a fan-out of one) all send through it.
 *
 * One slow-client policy: each client's send queue is the socket's own buffer, bounded in bytes by
 * `limitBytes` and watched through `bufferedAmount` (bytes accepted by `send` but not yet written).
 * A client over the bound skips messages until it has caught up: it loses messages (counted in
 * `dropped`, one per client and message) and never slows the source or the other clients, and
 * the memory it holds stays bounded. The payload is made once per message, and only when at least
 * one client takes it. What the callers choose: the bound, the payload (JSON text or binary) and
 * being told when the first client arrives and the last leaves, and when a client that skipped
 * messages is sent one again (how many it has lost then: the gaps it will find in what it reads).
 */

import { Buffer } from 'node:buffer';

/** What the fan-out needs of a socket (a `ws` WebSocket has it). */
export interface ClientSocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: string | Uint8Array): void;
  // Two signatures, as ws's own (its second parameter may be a callback instead).
  // eslint-disable-next-line @typescript-eslint/unified-signatures
  send(data: string | Uint8Array, options: { binary: boolean }): void;
  close(code?: number, reason?: string): void;
  on(event: 'close' | 'error', listener: () => void): unknown;
}

/** About a second of a 64-channel 2 kHz stream in JSON: a client further behind loses messages. */
export const CLIENT_SEND_LIMIT_BYTES = 1024 * 1024;

/** Close code of a service or node that goes away (RFC 6455 "going away"). */
export const GOING_AWAY = 1001;

/** The `readyState` of an open socket (ws exports it only on the class). */
const OPEN = 1;

/** Bytes sent as a text message (UTF-8 already). */
const AS_TEXT = Object.freeze({ binary: false });

/** A server's final, unmasked text frame of `payload` (RFC 6455 §5.2): header and payload in one buffer. */
export function textFrame(payload: Uint8Array): Buffer {
  const length = payload.length;
  const header = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(header + length);
  frame[0] = 0x81; // FIN, opcode 1 (text)
  if (header === 2) frame[1] = length;
  else if (header === 4) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeUInt32BE(Math.floor(length / 2 ** 32), 2);
    frame.writeUInt32BE(length >>> 0, 6);
  }
  frame.set(payload, header);
  return frame;
}

/**
 * The TCP connection under a `ws` WebSocket that may be written ready frames: one with no
 * extension negotiated (its frames are sent as they are) and whose sender holds nothing queued
 * (it queues only while compressing or reading a Blob). Anything else: undefined.
 */
function rawConnection(socket: ClientSocket): { write(data: Uint8Array): unknown } | undefined {
  const ws = socket as ClientSocket & {
    extensions?: unknown;
    _socket?: { write?: unknown };
    _sender?: { _queue?: unknown[] };
  };
  const connection = ws._socket;
  if (ws.extensions !== '' || connection === undefined || typeof connection.write !== 'function')
    return undefined;
  if ((ws._sender?._queue?.length ?? 0) > 0) return undefined;
  return connection as { write(data: Uint8Array): unknown };
}

export interface SocketFanoutOptions<S extends ClientSocket = ClientSocket> {
  /** Unsent bytes above which a client skips messages (default {@link CLIENT_SEND_LIMIT_BYTES}). */
  limitBytes?: number | undefined;
  /** Called when the first client arrives and when the last leaves (start or stop the source). */
  onActive?: (active: boolean) => void;
  /**
   * Called when a client that skipped messages is sent one again, with the messages it has lost
   * since it joined: all of them lie before this one, so they are the gaps the client will see.
   */
  onCaughtUp?: (socket: S, lost: number) => void;
}

/** A client's losses: the skips of its current run over the limit, and those before its last message. */
interface Losses {
  skipping: number;
  lost: number;
}

export class SocketFanout<S extends ClientSocket = ClientSocket> {
  private readonly clients = new Map<S, Losses>();
  private readonly limitBytes: number;
  private readonly onActive: (active: boolean) => void;
  private readonly onCaughtUp: ((socket: S, lost: number) => void) | undefined;
  /** Messages skipped for a client over its limit, all clients together. */
  dropped = 0;
  /** Clients that skipped the last message. */
  slowClients = 0;

  constructor(options: SocketFanoutOptions<S> = {}) {
    this.limitBytes = options.limitBytes ?? CLIENT_SEND_LIMIT_BYTES;
    this.onActive = options.onActive ?? (() => undefined);
    this.onCaughtUp = options.onCaughtUp;
  }

  get size(): number {
    return this.clients.size;
  }

  /** The clients now, for a caller that ends them its own way. */
  sockets(): S[] {
    return [...this.clients.keys()];
  }

  /** Messages a client lost before the last one it was sent (0 for one that lost none, or is gone). */
  lostBy(socket: S): number {
    return this.clients.get(socket)?.lost ?? 0;
  }

  /** Adds a client until its socket closes or fails; messages from clients are ignored. */
  add(socket: S): void {
    this.clients.set(socket, { skipping: 0, lost: 0 });
    if (this.clients.size === 1) this.onActive(true);
    const remove = (): void => {
      this.remove(socket);
    };
    socket.on('close', remove);
    socket.on('error', remove);
  }

  /** Takes a client out of the fan-out (its socket is left as it is). */
  remove(socket: S): void {
    if (this.clients.delete(socket) && this.clients.size === 0) this.onActive(false);
  }

  /** Sends `message` as JSON text (serialised once); answers how many clients skipped it. */
  send(message: unknown): number {
    return this.sendPayload(() => JSON.stringify(message));
  }

  /**
   * Sends the payload `encode` makes (called at most once, and only if a client takes it) to every
   * open client under its limit; answers how many clients skipped it.
   */
  sendPayload(encode: () => string | Uint8Array, options?: { binary: boolean }): number {
    if (this.clients.size === 0) return 0;
    let payload: string | Uint8Array | undefined;
    let skipped = 0;
    for (const [socket, losses] of this.clients) {
      if (socket.readyState !== OPEN) continue;
      if (socket.bufferedAmount > this.limitBytes) {
        skipped++;
        losses.skipping++;
        continue;
      }
      if (losses.skipping > 0) this.caughtUp(socket, losses);
      payload ??= encode();
      if (options === undefined) socket.send(payload);
      else socket.send(payload, options);
    }
    this.dropped += skipped;
    this.slowClients = skipped;
    return skipped;
  }

  /**
   * As {@link sendPayload} for a text message: the message is encoded and framed once (RFC 6455
   * §5.2, a server's unmasked final text frame) and the same bytes are written to every client's
   * connection in one write. A client whose connection cannot take ready frames (an extension
   * such as compression was negotiated, or a socket that is not `ws`'s) is sent the UTF-8 bytes
   * as a text message instead. Either way no client encodes the text again.
   */
  sendText(encode: () => string): number {
    if (this.clients.size === 0) return 0;
    let bytes: Buffer | undefined;
    let framed: Buffer | undefined;
    let skipped = 0;
    for (const [socket, losses] of this.clients) {
      if (socket.readyState !== OPEN) continue;
      if (socket.bufferedAmount > this.limitBytes) {
        skipped++;
        losses.skipping++;
        continue;
      }
      if (losses.skipping > 0) this.caughtUp(socket, losses);
      bytes ??= Buffer.from(encode(), 'utf8');
      const connection = rawConnection(socket);
      if (connection === undefined) socket.send(bytes, AS_TEXT);
      else connection.write((framed ??= textFrame(bytes)));
    }
    this.dropped += skipped;
    this.slowClients = skipped;
    return skipped;
  }

  /** Closes every client (service shutdown) with 1001 going away. */
  closeAll(reason = 'The service is shutting down.'): void {
    for (const socket of this.clients.keys()) socket.close(GOING_AWAY, reason);
    this.clients.clear();
  }

  /** A client that skipped messages is about to be sent one: its run of skips becomes lost messages. */
  private caughtUp(socket: S, losses: Losses): void {
    losses.lost += losses.skipping;
    losses.skipping = 0;
    this.onCaughtUp?.(socket, losses.lost);
  }
}

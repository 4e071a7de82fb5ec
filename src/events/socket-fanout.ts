/**
 * Fan-out of JSON messages to WebSocket clients (docs/architecture.md §Data plane: a websocket client has its own
 * bounded send queue watched through `bufferedAmount`). Each message is serialised once; a client
 * whose unsent bytes exceed the limit skips messages until it has caught up, so a slow client loses
 * messages and never slows the source or the other clients.
 */
/** What the fan-out needs of a socket (a `ws` WebSocket has it). */
export interface ClientSocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(text: string): void;
  close(code?: number, reason?: string): void;
  on(event: 'close' | 'error', listener: () => void): unknown;
}

/** About a second of 19-channel 2 kHz EEG in JSON: a client further behind than this loses messages. */
export const CLIENT_SEND_LIMIT_BYTES = 1024 * 1024;

/** The `readyState` of an open socket (ws exports it only on the class). */
const OPEN = 1;

export class SocketFanout {
  private readonly clients = new Set<ClientSocket>();
  /** Messages skipped for a client over its limit, all clients together. */
  dropped = 0;

  constructor(
    private readonly limitBytes = CLIENT_SEND_LIMIT_BYTES,
    /** Called when the first client arrives and when the last leaves (start or stop the source). */
    private readonly onActive: (active: boolean) => void = () => undefined,
  ) {}

  get size(): number {
    return this.clients.size;
  }

  /** Adds a client until its socket closes; messages from clients are ignored. */
  add(socket: ClientSocket): void {
    this.clients.add(socket);
    if (this.clients.size === 1) this.onActive(true);
    const remove = (): void => {
      if (this.clients.delete(socket) && this.clients.size === 0) this.onActive(false);
    };
    socket.on('close', remove);
    socket.on('error', remove);
  }

  /** Sends `message` (serialised once) to every open client under its limit. */
  send(message: unknown): void {
    if (this.clients.size === 0) return;
    const text = JSON.stringify(message);
    for (const socket of this.clients) {
      if (socket.readyState !== OPEN) continue;
      if (socket.bufferedAmount > this.limitBytes) {
        this.dropped++;
        continue;
      }
      socket.send(text);
    }
  }

  /** Closes every client (service shutdown) with 1001 going away. */
  closeAll(reason = 'The service is shutting down.'): void {
    for (const socket of this.clients) socket.close(1001, reason);
    this.clients.clear();
  }
}

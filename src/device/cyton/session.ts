/**
 * One open serial link to a Cyton: the bytes in cut by the parser (./parser.ts), commands out, and
 * each command's answer (the next `$$$` text it recognises) handed back to whoever asked. Packets,
 * and texts nobody asked for (a banner mid-stream), go to the driver in arrival order. A session
 * lasts as long as its link: a reopened port is a new session.
 */
import { errorMessage } from '../../core/error-message.js';
import type { Unsubscribe } from '../../core/listener-set.js';
import { DeviceUnavailableError } from '../errors.js';
import type { SerialLink } from './link.js';
import type { PacketParser, ParsedItem } from './parser.js';

export interface SessionHandlers {
  /** Packets (each with its arrival time) and unclaimed texts, in order; `at`: when they were read. */
  items(items: readonly ParsedItem[], at: number): void;
  /** The link ended without `close()`. */
  closed(reason: string): void;
}

interface Waiter {
  readonly accept: (text: string) => boolean;
  readonly resolve: (text: string) => void;
}

/** How long the line must be quiet before a packet held back for the next header is read as it is, ms. */
const QUIET_MS = 50;

export class CytonSession {
  private readonly waiters = new Set<Waiter>();
  private readonly subscriptions: Unsubscribe[];
  private quietTimer: NodeJS.Timeout | undefined;
  private ended = false;

  constructor(
    private readonly link: SerialLink,
    private readonly path: string,
    private readonly parser: PacketParser,
    private readonly handlers: SessionHandlers,
    private readonly now: () => number,
  ) {
    parser.reset();
    this.subscriptions = [
      link.onData((chunk) => {
        this.receive(chunk);
      }),
      link.onClose((error) => {
        if (this.ended) return;
        void this.close();
        handlers.closed(error === undefined ? 'the port closed' : errorMessage(error));
      }),
    ];
  }

  get open(): boolean {
    return !this.ended;
  }

  async write(text: string): Promise<void> {
    if (this.ended)
      throw new DeviceUnavailableError('disconnected', `The Cyton's port ${this.path} is not open.`);
    await this.link.write(text);
  }

  /** Sends `text` and waits for the first answer `accept` recognises; `what` names it in the timeout. */
  async ask(
    text: string,
    accept: (answer: string) => boolean,
    timeoutMs: number,
    what: string,
  ): Promise<string> {
    let waiter: Waiter | undefined;
    let timer: NodeJS.Timeout | undefined;
    const answer = new Promise<string>((resolve, reject) => {
      waiter = { accept, resolve };
      this.waiters.add(waiter);
      timer = setTimeout(() => {
        reject(
          new DeviceUnavailableError(
            'disconnected',
            `The board on ${this.path} did not answer ${what} within ${timeoutMs / 1000} s. Check that the Cyton is switched on (PC position), that the dongle's switch is on GPIO6 and that both use the same radio channel.`,
          ),
        );
      }, timeoutMs);
    });
    answer.catch(() => undefined);
    try {
      await this.write(text);
      return await answer;
    } finally {
      clearTimeout(timer);
      if (waiter !== undefined) this.waiters.delete(waiter);
    }
  }

  /** Unsubscribes and closes the link. Safe to call twice. */
  async close(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.quietTimer);
    for (const unsubscribe of this.subscriptions) unsubscribe();
    await this.link.close().catch(() => undefined);
  }

  private receive(chunk: Uint8Array): void {
    const at = this.now();
    this.deliver(this.parser.push(chunk, at), at);
    // The last packet before `s` waits for a next header that never comes: once the line has been
    // quiet a while, the parser takes it if it continues the count (./parser.ts).
    clearTimeout(this.quietTimer);
    if (this.parser.pending > 0) {
      this.quietTimer = setTimeout(() => {
        this.deliver(this.parser.flush(), this.now());
      }, QUIET_MS);
    }
  }

  /** Answers go to their askers; the rest to the driver, in order. */
  private deliver(items: readonly ParsedItem[], at: number): void {
    const rest = items.filter((item) => item.kind !== 'message' || !this.claim(item.text));
    if (rest.length > 0) this.handlers.items(rest, at);
  }

  private claim(text: string): boolean {
    for (const waiter of this.waiters) {
      if (waiter.accept(text)) {
        this.waiters.delete(waiter);
        waiter.resolve(text);
        return true;
      }
    }
    return false;
  }
}

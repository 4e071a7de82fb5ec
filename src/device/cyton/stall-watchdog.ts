/**
 * Notices a board that goes silent while its port stays open (switched off, battery flat, out of
 * radio range: the dongle still answers for the port). The driver marks each chunk holding packets
 * (`heard`, one clock read, no timer); one interval timer compares the time since with `timeoutMs`.
 *
 * It judges only while `armed()` (streaming, the link up, no recovery under way): a stop, a gain
 * change's or an impedance measurement's pause disarm it, and being armed again starts the count
 * afresh. A tick that comes late (this process itself was held up) does not blame the board: the
 * bytes may be waiting to be read, so the count starts afresh too.
 */

/** The default silence after which a streaming board is declared lost, ms. */
export const DEFAULT_STALL_TIMEOUT_MS = 2000;

export class StallWatchdog {
  private last = 0;
  private lastTick = 0;
  private wasArmed = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly period: number;

  constructor(
    private readonly timeoutMs: number,
    private readonly armed: () => boolean,
    private readonly stalled: (silentMs: number) => void,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.period = Math.max(10, Math.round(timeoutMs / 4));
  }

  /** Packets arrived. */
  heard(): void {
    this.last = this.clock();
  }

  /** Starts watching (idempotent); the timer does not keep the process alive. */
  start(): void {
    if (this.timer !== undefined) return;
    this.lastTick = this.clock();
    this.timer = setInterval(() => {
      this.check();
    }, this.period);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private check(): void {
    const now = this.clock();
    const late = now - this.lastTick > 2 * this.period;
    this.lastTick = now;
    const armed = this.armed();
    const fresh = armed && !this.wasArmed;
    this.wasArmed = armed;
    if (!armed) return;
    if (fresh || late) {
      this.last = now;
      return;
    }
    const silent = now - this.last;
    if (silent < this.timeoutMs) return;
    this.last = now;
    this.stalled(silent);
  }
}

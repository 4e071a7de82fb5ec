/**
 * What the Cyton driver says of its link (../live/driver.ts `LiveLinkEvent`): `lost` once per
 * reason while the board is lost (a retry that fails the same way says nothing new; a new reason, a
 * board that answers but stays mute or that came back as another, is said), and `restored` once it
 * is back: at once when nothing is expected of it, else (streaming) at its first packet, so that a
 * board that answers commands but sends no sample stays lost.
 */
import type { LiveLinkEvent } from '../live/driver.js';

export class LinkReports {
  /** The sentence of the last `lost` while the board is lost (no `restored` since). */
  private lostMessage: string | undefined;
  /** The stream was started again after a loss: `restored` waits for its first packet. */
  private pending: string | undefined;

  constructor(private readonly emit: (event: LiveLinkEvent) => void) {}

  get isLost(): boolean {
    return this.lostMessage !== undefined;
  }

  /** Lost, then answering again, and no packet yet from the restarted stream. */
  get awaitingSamples(): boolean {
    return this.pending !== undefined;
  }

  lost(message: string): void {
    this.pending = undefined;
    if (this.lostMessage === message) return;
    this.lostMessage = message;
    this.emit({ kind: 'lost', message });
  }

  /** The board answers again; `streaming`: its stream was restarted, and `restored` waits for it. */
  restored(message: string, streaming: boolean): void {
    if (streaming) this.pending = message;
    else this.announce(message);
  }

  /** Packets arrived from the stream. */
  samplesArrived(): void {
    if (this.pending !== undefined) this.announce(this.pending);
  }

  private announce(message: string): void {
    this.pending = undefined;
    if (this.lostMessage === undefined) return;
    this.lostMessage = undefined;
    this.emit({ kind: 'restored', message });
  }
}

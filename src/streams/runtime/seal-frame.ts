/**
 * Turns what a node emits into the frame every consumer shares: `seq` numbered per output port by
 * the runtime, `createdAt` stamped when the source did not, everything frozen. Sealing is one
 * small object per emit; the sample buffer is never copied.
 */
import type { Frame } from '../../core/frame.js';
import { frameClock } from './metrics.js';

/** Numbers the frames of one node's output ports and marks the first frame after a gap. */
export class PortSequencer {
  private readonly next = new Map<string, number>();
  /** Ports whose next frame must carry `discontinuity: true`. */
  private readonly gapPending = new Set<string>();

  /** Every port that has emitted so far marks its next frame as a discontinuity. */
  markGap(): void {
    for (const port of this.next.keys()) this.gapPending.add(port);
  }

  /** The sealed, frozen frame to route: same samples, runtime `seq`, `createdAt` kept or stamped. */
  seal(port: string, frame: Frame): Frame {
    const seq = this.next.get(port) ?? 0;
    this.next.set(port, seq + 1);
    const gap = this.gapPending.delete(port);
    const discontinuity = frame.discontinuity === true || gap;
    const channels = Object.isFrozen(frame.channels) ? frame.channels : Object.freeze([...frame.channels]);
    return Object.freeze({
      seq,
      timestamp: frame.timestamp,
      sampleRate: frame.sampleRate,
      channels,
      data: frame.data,
      ...(frame.units === undefined ? {} : { units: frozenUnits(frame.units, channels.length) }),
      ...(discontinuity ? { discontinuity: true } : {}),
      ...(frame.range === undefined ? {} : { range: frame.range }),
      ...(frame.highpass === undefined ? {} : { highpass: frame.highpass }),
      ...(frame.lostSamples === undefined ? {} : { lostSamples: frame.lostSamples }),
      ...(frame.annotation === undefined ? {} : { annotation: frame.annotation }),
      ...(frame.marker === undefined ? {} : { marker: Object.freeze({ ...frame.marker }) }),
      createdAt: frame.createdAt ?? frameClock(),
    });
  }
}

/**
 * A frame's units as every consumer shares them: frozen (copied once when not), and exactly one per
 * channel. A node that emits a list of another length is at fault: refusing the frame here names it,
 * where a recorder or an outlet further down could only write the wrong unit on a channel.
 */
function frozenUnits(units: readonly string[], width: number): readonly string[] {
  if (units.length !== width) {
    throw new RangeError(
      `a frame's units has ${units.length} entries for ${width} channels (one per channel)`,
    );
  }
  return Object.isFrozen(units) ? units : Object.freeze([...units]);
}

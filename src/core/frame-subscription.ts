/**
 * One subscription's share of the device's frames: what is done per subscription and per frame,
 * on the thread that delivers to the subscriber (a stream's worker: streams/runtime/device-bridge.ts;
 * or the device's own thread: {@link frameSourceOf}). The device's side (device/sources/frame-source.ts)
 * keeps what is control: refusing a subscription, the one acquisition hold of the streams, the
 * forced reset; it sends every frame once per thread, and each subscription here takes its part.
 *
 * A subscriber gets every channel it asked for or no frame at all (docs/api.md §Channels a stream
 * may rely on): while the device's frames lack one of them, or the device says it holds frames back
 * (a forced reset), frames are held and the subscriber hears why (`onCondition`), then `undefined`
 * when they flow again; the first frame delivered again carries `discontinuity: true`. A
 * subscription with `frameMs` gets frames of that duration (core/frame-joiner.ts); rows joined
 * when frames are held back are delivered first, as a shorter frame.
 */
import { channelUnit, type Frame, unitsOrNone } from './frame.js';
import { FrameJoiner } from './frame-joiner.js';
import type { DeviceFeed, DeviceFrameSource } from './node.js';

/** A frame narrowed to `channels` (in that order); the same frame when it already matches. */
export function selectChannels(frame: Frame, channels: readonly string[]): Frame {
  return channelSelector(channels)(frame);
}

/**
 * {@link selectChannels} for one subscription: which columns to take is worked out once per
 * channel list of the device (a list object stays the same for a whole acquisition run), not per
 * frame.
 */
export function channelSelector(channels: readonly string[]): (frame: Frame) => Frame {
  let planned: readonly string[] | undefined;
  let columns: number[] = [];
  let names: readonly string[] = [];
  let plannedUnits: readonly string[] | undefined;
  let units: readonly string[] | undefined;
  let identity = false;
  return (frame) => {
    if (frame.channels !== planned || frame.units !== plannedUnits) {
      planned = frame.channels;
      plannedUnits = frame.units;
      const width = frame.channels.length;
      columns = channels.map((name) => frame.channels.indexOf(name)).filter((c) => c >= 0);
      identity = columns.length === width && columns.every((c, i) => c === i);
      names = Object.freeze(columns.map((c) => frame.channels[c] ?? ''));
      // The chosen channels' units; none when they are all in µV (an accelerometer left out).
      const chosen = frame.units === undefined ? undefined : columns.map((c) => channelUnit(frame, c));
      units = chosen === undefined ? undefined : unitsOrNone(Object.freeze(chosen));
    }
    if (identity) return frame;
    const width = frame.channels.length;
    const rows = width === 0 ? 0 : frame.data.length / width;
    const data = new Float32Array(rows * columns.length);
    for (let row = 0; row < rows; row++) {
      for (let i = 0; i < columns.length; i++)
        data[row * columns.length + i] = frame.data[row * width + (columns[i] ?? 0)] ?? 0;
    }
    const { units: _all, ...rest } = frame;
    return { ...rest, channels: names, data, ...(units === undefined ? {} : { units }) };
  };
}

/** Why a subscription's frames are held while the device's frames lack `missing`. */
export function missingReason(missing: readonly string[]): string {
  const they = missing.length === 1 ? 'it is' : 'they are';
  return `the device no longer acquires ${missing.join(', ')} (its EEG configuration changed: PUT /system/sensors/eeg or POST /system/peripheral/electrodes/config); frames are held until ${they} acquired again`;
}

export class FrameSubscription {
  private readonly joiner: FrameJoiner | undefined;
  /** The channels delivered, as frames name them; undefined until the opening or the first frame says. */
  private wanted: readonly string[] | undefined;
  private select: ((frame: Frame) => Frame) | undefined;
  /** The device's channel list last checked, and which wanted channels it lacks. */
  private checked: readonly string[] | undefined;
  private missing: readonly string[] = [];
  /** Why frames are held back now; undefined while they flow. */
  private held: string | undefined;

  constructor(
    frameMs: number | undefined,
    private readonly onFrame: (frame: Frame) => void,
    private readonly onCondition: ((problem: string | undefined) => void) | undefined,
  ) {
    this.joiner = frameMs === undefined ? undefined : new FrameJoiner(frameMs, onFrame);
  }

  /**
   * The channels the device granted (as frames name them); undefined: every channel of the first
   * frame, kept for the subscription's life.
   */
  accept(channels: readonly string[] | undefined): void {
    this.wanted = channels;
  }

  /** One of the device's frames (shared with the thread's other subscriptions: never altered). */
  push(frame: Frame): void {
    const wanted = (this.wanted ??= [...frame.channels]);
    this.select ??= channelSelector(wanted);
    if (frame.channels !== this.checked) {
      this.checked = frame.channels;
      this.missing = wanted.filter((name) => !frame.channels.includes(name));
    }
    if (this.missing.length > 0) {
      this.hold(missingReason(this.missing));
      return;
    }
    const selected = this.select(frame);
    if (this.held === undefined) {
      this.deliver(selected);
      return;
    }
    this.held = undefined;
    this.onCondition?.(undefined);
    this.deliver(selected.discontinuity === true ? selected : { ...selected, discontinuity: true });
  }

  /** Frames are held back for `reason` until one flows again with every channel. */
  hold(reason: string): void {
    if (this.held === reason) return;
    // The rows joined so far came before the hold: they go out now, not after it.
    this.joiner?.flush();
    this.held = reason;
    this.onCondition?.(reason);
  }

  /** The subscription ends: so does its condition (a node restarted subscribes anew). */
  end(): void {
    if (this.held === undefined) return;
    this.held = undefined;
    this.onCondition?.(undefined);
  }

  private deliver(frame: Frame): void {
    if (this.joiner === undefined) this.onFrame(frame);
    else this.joiner.push(frame);
  }
}

/**
 * A device's feed as a frame source on the thread it runs on: each subscription opened on the
 * device, taking its part of every frame here (the same work a stream's worker does).
 */
export function frameSourceOf(feed: DeviceFeed): DeviceFrameSource {
  return {
    async subscribe(request, onFrame, onCondition) {
      const subscription = new FrameSubscription(request.frameMs, onFrame, onCondition);
      const opened = await feed.open(request, (reason) => {
        subscription.hold(reason);
      });
      subscription.accept(opened.channels);
      const stopFrames = feed.onFrame((frame) => {
        subscription.push(frame);
      });
      let active = true;
      return () => {
        if (!active) return;
        active = false;
        stopFrames();
        subscription.end();
        opened.close();
      };
    },
  };
}

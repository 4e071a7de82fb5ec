/**
 * The headset's EEG as the stream runtime's `DeviceFrameSource` (src/core/node.ts): the adapter
 * the main thread hands to the runtime's device forwarder. Subscriptions are counted here, so the
 * device sees one `streams` hold: taken by the first subscriber (starting acquisition at that
 * subscriber's rate when it was idle), released after the last. A client's hold is never touched.
 *
 * A subscriber gets every channel it asked for or no frame at all (docs/api.md §Channels a stream
 * may rely on): a subscription naming channels the device does not acquire is refused
 * (`channels_unavailable`); when the device's configuration later drops some of them, or a forced
 * reset stops acquisition under the streams, frames are held back and the subscriber hears why
 * (`onCondition`); the first frame delivered again carries `discontinuity: true`. After a forced
 * reset the `streams` hold is taken again at once (and retried while the device refuses).
 *
 * A subscription with `frameMs` gets frames of that duration, joined here, on the thread the
 * device's frames arrive on (core/frame-joiner.ts); rows held when frames are held back are
 * delivered first, as a shorter frame.
 */
import { channelUnit, type Frame, unitsOrNone } from '../../core/frame.js';
import { FrameJoiner } from '../../core/frame-joiner.js';
import { ListenerSet } from '../../core/listener-set.js';
import type { DeviceFrameSource } from '../../core/node.js';
import { ChannelsUnavailableError } from '../errors.js';
import { type Headset } from '../headset.js';
import { EEG_SAMPLING_FREQUENCIES } from '../../core/hardware.js';
import { sameChannelName } from '../channels.js';

/** How often the `streams` hold is tried again while the device refuses it after a forced reset. */
const RETAKE_RETRY_MS = 1_000;

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

/**
 * The 409 for channels (any case) the device does not acquire now; undefined when it acquires
 * every one. `details.field` points at the first of them in the list (`channels/2`), for the
 * caller's pointer; the message has no final stop, as a node's reason. `frameName` gives a channel
 * the name frames carry (the headset's `FP1` is `Fp1`).
 */
export function channelsUnavailable(
  asked: readonly string[],
  acquired: readonly string[],
  frameName: (name: string) => string = (name) => name,
): ChannelsUnavailableError | undefined {
  const missing = asked.filter((name) => !acquired.some((a) => sameChannelName(a, name)));
  const first = missing[0];
  if (first === undefined) return undefined;
  const them = missing.length === 1 ? 'it' : 'them';
  const named = (names: readonly string[]): string => names.map(frameName).join(', ');
  return new ChannelsUnavailableError(
    `The device does not acquire ${named(missing)}: its EEG configuration acquires ${acquired.length === 0 ? 'no channel' : named(acquired)}. Enable ${them} first (PUT /system/sensors/eeg?channels=… or POST /system/peripheral/electrodes/config with ${them} in enabled; a replayed recording has only its own channels), or name only acquired channels`,
    { channels: missing, acquired: [...acquired], field: `channels/${asked.indexOf(first)}` },
  );
}

function missingReason(missing: readonly string[]): string {
  const they = missing.length === 1 ? 'it is' : 'they are';
  return `the device no longer acquires ${missing.join(', ')} (its EEG configuration changed: PUT /system/sensors/eeg or POST /system/peripheral/electrodes/config); frames are held until ${they} acquired again`;
}

const RESET_REASON =
  'EEG acquisition was stopped by a forced reset of the device (DELETE /system/sensors/eeg?force=true); frames are held until it runs again (the streams take it again at once)';

/** The name frames give a device's channel named `name` in any case or form (`FP1` → `Fp1`). */
export function deviceFrameName(headset: Headset): (name: string) => string {
  const channels = headset.eeg.channels();
  return (name) => channels.find((c) => sameChannelName(c.name, name))?.name ?? name;
}

/**
 * The refusal a subscription to `channels` (any case; empty: every channel acquired when the first
 * frame comes, never refused) meets now: `channels_unavailable` for those the device does not
 * acquire. The one check: a subscription makes it, and the stream manager makes it on the main
 * thread when a stream is sent `start` (streams/device-refusal.ts), so that the start answers it.
 */
export function subscriptionRefusal(
  headset: Headset,
  channels: readonly string[],
): ChannelsUnavailableError | undefined {
  if (channels.length === 0) return undefined;
  return channelsUnavailable(
    headset.eeg.channelList(channels),
    headset.eeg.acquiredChannels(),
    deviceFrameName(headset),
  );
}

export function headsetFrameSource(headset: Headset): DeviceFrameSource {
  let subscribers = 0;
  /** Each subscription's notice that acquisition stopped under it. */
  const stoppedUnder = new ListenerSet<undefined>();
  let retaking = false;

  /** Takes the `streams` hold again after a forced reset, retrying while the device refuses. */
  const retake = (): void => {
    if (subscribers === 0 || retaking) return;
    retaking = true;
    headset.eeg.start('streams').then(
      () => {
        retaking = false;
        if (subscribers === 0) void headset.eeg.stop('streams');
      },
      () => {
        retaking = false;
        setTimeout(retake, RETAKE_RETRY_MS).unref();
      },
    );
  };

  headset.onEvent((event) => {
    if (event.type !== 'system' || event.eventType !== 'acquisition_stopped' || subscribers === 0) return;
    if (headset.eeg.state().owners.includes('streams')) return;
    // The streams' hold was taken away while they read (a forced reset).
    stoppedUnder.emit(undefined);
    retake();
  });

  return {
    async subscribe(request, onFrame, onCondition) {
      // Validates names (any case) against the device's channels, checked against the acquired
      // ones; frames name channels as the device does (frameName). An empty list means every channel
      // the device acquires when the first frame comes, kept for the subscription's life.
      const refusal = subscriptionRefusal(headset, request.channels);
      if (refusal !== undefined) throw refusal;
      const asked = request.channels.length === 0 ? undefined : headset.eeg.channelList(request.channels);
      const frameName = deviceFrameName(headset);
      const rate = EEG_SAMPLING_FREQUENCIES.find((r) => r === request.sampleRate);
      subscribers++;
      try {
        // The rate and gain asked for apply when this starts acquisition; one already running keeps
        // its own (the rate is converted by the node; the gain leaves µV values as they are).
        const initial = {
          ...(rate === undefined ? {} : { samplingFrequency: rate }),
          ...(request.gain === undefined ? {} : { gain: request.gain }),
        };
        await headset.eeg.start('streams', Object.keys(initial).length === 0 ? undefined : initial);
      } catch (error) {
        subscribers--;
        throw error;
      }
      let wanted: readonly string[] | undefined = asked?.map(frameName);
      const joiner = request.frameMs === undefined ? undefined : new FrameJoiner(request.frameMs, onFrame);
      const deliver =
        joiner === undefined
          ? onFrame
          : (frame: Frame) => {
              joiner.push(frame);
            };
      /** Why frames are held back now; undefined while they flow. */
      let held: string | undefined;
      const hold = (reason: string): void => {
        if (held === reason) return;
        // The rows joined so far came before the hold: they go out now, not after it.
        joiner?.flush();
        held = reason;
        onCondition?.(reason);
      };
      const unsubscribeStop = stoppedUnder.add(() => {
        hold(RESET_REASON);
      });
      let select: ((frame: Frame) => Frame) | undefined;
      /** The device's channel list last checked, and which wanted channels it lacks. */
      let checked: readonly string[] | undefined;
      let missing: readonly string[] = [];
      const unsubscribeFrames = headset.eeg.onFrame((frame) => {
        wanted ??= [...frame.channels];
        select ??= channelSelector(wanted);
        if (frame.channels !== checked) {
          checked = frame.channels;
          missing = wanted.filter((name) => !frame.channels.includes(name));
        }
        if (missing.length > 0) {
          hold(missingReason(missing));
          return;
        }
        const selected = select(frame);
        if (held === undefined) {
          deliver(selected);
          return;
        }
        held = undefined;
        onCondition?.(undefined);
        deliver(selected.discontinuity === true ? selected : { ...selected, discontinuity: true });
      });
      let active = true;
      return () => {
        if (!active) return;
        active = false;
        unsubscribeFrames();
        unsubscribeStop();
        // The condition ends with the subscription (a node restarted subscribes anew).
        if (held !== undefined) onCondition?.(undefined);
        subscribers--;
        if (subscribers === 0) void headset.eeg.stop('streams');
      };
    },
  };
}

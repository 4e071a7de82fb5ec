/**
 * The headset's EEG as the stream runtime's `DeviceFeed` (src/core/node.ts): the adapter the main
 * thread hands to the runtime's device forwarders, one per worker. What is control is here:
 * subscriptions are counted, so the device sees one `streams` hold: taken by the first subscriber
 * (starting acquisition at that subscriber's rate and gain when it was idle), released after the
 * last. A client's hold is never touched.
 *
 * A subscriber gets every channel it asked for or no frame at all (docs/api.md §Channels a stream
 * may rely on): a subscription naming channels the device does not acquire is refused
 * (`channels_unavailable`). When a forced reset stops acquisition under the streams, each open
 * subscription hears it (`onHold`) and the `streams` hold is taken again at once (and retried while
 * the device refuses). What a subscription takes of each frame (its channels, the hold while the
 * device lacks one, `frameMs` joining) is worked out where it is delivered, on the subscriber's
 * thread (core/frame-subscription.ts), so that the device's frame is handed out once per thread.
 */
import { frameSourceOf } from '../../core/frame-subscription.js';
import { ListenerSet } from '../../core/listener-set.js';
import type { DeviceFeed, DeviceFrameSource } from '../../core/node.js';
import { ChannelsUnavailableError } from '../errors.js';
import { type Headset } from '../headset.js';
import { EEG_SAMPLING_FREQUENCIES } from '../../core/hardware.js';
import { sameChannelName } from '../channels.js';

/** How often the `streams` hold is tried again while the device refuses it after a forced reset. */
const RETAKE_RETRY_MS = 1_000;

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

/**
 * The headset as the streams' device: a feed for the runtime's forwarders, and (on the main
 * thread itself) a frame source whose subscriptions take their part of each frame here.
 */
export function headsetFrameSource(headset: Headset): DeviceFeed & DeviceFrameSource {
  let subscribers = 0;
  /** Each open subscription's notice that acquisition stopped under it. */
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

  const feed: DeviceFeed = {
    async open(request, onHold) {
      // Validates names (any case) against the device's channels, checked against the acquired
      // ones; frames name channels as the device does (frameName). An empty list means every
      // channel the device acquires when the first frame comes, kept for the subscription's life.
      const refusal = subscriptionRefusal(headset, request.channels);
      if (refusal !== undefined) throw refusal;
      const frameName = deviceFrameName(headset);
      const channels =
        request.channels.length === 0 ? undefined : headset.eeg.channelList(request.channels).map(frameName);
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
      const unsubscribeStop = stoppedUnder.add(() => {
        onHold?.(RESET_REASON);
      });
      let active = true;
      return {
        channels: channels === undefined ? undefined : Object.freeze(channels),
        close: () => {
          if (!active) return;
          active = false;
          unsubscribeStop();
          subscribers--;
          if (subscribers === 0) void headset.eeg.stop('streams');
        },
      };
    },
    onFrame: (listener) => headset.eeg.onFrame(listener),
    framePort: () => headset.eeg.framePort(),
  };
  return { ...feed, ...frameSourceOf(feed) };
}

/**
 * The headset's EEG as the stream runtime's `DeviceFrameSource` (src/core/node.ts): the adapter
 * the main thread hands to the runtime's device forwarder. Subscriptions are counted here, so the
 * device sees one `streams` hold: taken by the first subscriber (starting acquisition at that
 * subscriber's rate when it was idle), released after the last. A client's hold is never touched.
 */
import { channelName } from '../core/electrodes.js';
import type { Frame } from '../core/frame.js';
import type { DeviceFrameSource } from '../core/node.js';
import { EEG_SAMPLING_FREQUENCIES, type Headset } from './headset.js';
import { eegChannelListOrThrow } from './arguments.js';

/** A frame narrowed to `channels` (in that order); the same frame when it already matches. */
export function selectChannels(frame: Frame, channels: readonly string[]): Frame {
  const width = frame.channels.length;
  const columns = channels.map((name) => frame.channels.indexOf(name)).filter((c) => c >= 0);
  if (columns.length === width && columns.every((c, i) => c === i)) return frame;
  const rows = width === 0 ? 0 : frame.data.length / width;
  const data = new Float32Array(rows * columns.length);
  for (let row = 0; row < rows; row++) {
    for (let i = 0; i < columns.length; i++)
      data[row * columns.length + i] = frame.data[row * width + (columns[i] ?? 0)] ?? 0;
  }
  return { ...frame, channels: columns.map((c) => frame.channels[c] ?? ''), data };
}

export function headsetFrameSource(headset: Headset): DeviceFrameSource {
  let subscribers = 0;
  return {
    async subscribe(request, onFrame) {
      // Validates names (any case); frames name channels in the 10-20 form (channelName). An empty
      // list means every acquired channel.
      const channels =
        request.channels.length === 0 ? undefined : eegChannelListOrThrow(request.channels).map(channelName);
      const rate = EEG_SAMPLING_FREQUENCIES.find((r) => r === request.sampleRate);
      subscribers++;
      try {
        await headset.eeg.start('streams', rate === undefined ? undefined : { samplingFrequency: rate });
      } catch (error) {
        subscribers--;
        throw error;
      }
      const unsubscribeFrames = headset.eeg.onFrame((frame) => {
        onFrame(channels === undefined ? frame : selectChannels(frame, channels));
      });
      let active = true;
      return () => {
        if (!active) return;
        active = false;
        unsubscribeFrames();
        subscribers--;
        if (subscribers === 0) void headset.eeg.stop('streams');
      };
    },
  };
}

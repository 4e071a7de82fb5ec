/**
 * The Headset contract's cases on EEG acquisition and impedance, the two activities that share the
 * front end: frames and their pacing, owners, configuration and reset, and the typed refusals
 * (DeviceBusyError naming the holder, DeviceArgumentError naming the field).
 */
import { expect } from 'vitest';
import type { Frame } from '../../src/core/frame.js';
import { DeviceFrameReader, type DeviceFrameMessage } from '../../src/core/frame-wire.js';
import { eventually } from '../support/wait.js';
import { sameChannelName } from '../../src/device/channels.js';
import { DeviceArgumentError, DeviceBusyError } from '../../src/device/errors.js';
import { deviceFrameName } from '../../src/device/sources/frame-source.js';
import { onDeviceTime } from '../support/device-time.js';
import { type HeadsetCase, rowsOf } from './headset-case.js';
import { requirePart } from '../../src/device/capabilities.js';

async function thrown(work: Promise<unknown> | (() => unknown)): Promise<unknown> {
  try {
    await (typeof work === 'function' ? work() : work);
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

export const EEG_CASES: readonly HeadsetCase[] = [
  {
    title:
      "the device's channels as it is: each configured channel is one it plays, named in any case; frames carry their names; unplayed ones say why",
    covers: ['eeg.channels', 'eeg.unplayedChannels', 'eeg.channelList', 'eeg.config', 'eeg.onFrame'],
    async run({ device, clock, frames }) {
      const played = device.eeg.channels();
      expect(played.length).toBeGreaterThan(0);
      for (const channel of played) {
        expect(channel.name).not.toBe('');
        expect(channel.unit).toBe('µV');
        expect(['EEG', 'EXG', 'AUX', 'ACC', 'MISC']).toContain(channel.type);
      }
      for (const name of device.eeg.config().channels) {
        expect(played.filter((c) => sameChannelName(c.name, name))).toHaveLength(1);
      }
      for (const unplayed of device.eeg.unplayedChannels()) {
        expect(unplayed.name).not.toBe('');
        expect(unplayed.reason).not.toBe('');
      }
      // Values, which readers keep what they made of (the status answer keeps their JSON text):
      // frozen, and the very same list while the channels do not change.
      expect(Object.isFrozen(played)).toBe(true);
      expect(device.eeg.channels()).toBe(played);
      expect(Object.isFrozen(device.eeg.unplayedChannels())).toBe(true);
      expect(device.eeg.unplayedChannels()).toBe(device.eeg.unplayedChannels());
      // Any case in, the configuration's form out, each once.
      const [first, second] = played;
      const asked = [first?.name.toLowerCase() ?? '', second?.name.toUpperCase() ?? '', first?.name ?? ''];
      const listed = device.eeg.channelList(second === undefined ? asked.slice(0, 1) : asked);
      expect(listed.map(deviceFrameName(device))).toEqual(
        second === undefined ? [first?.name] : [first?.name, second.name],
      );
      const unknown = (() => {
        try {
          device.eeg.channelList(['no such channel']);
        } catch (error) {
          return error;
        }
        return undefined;
      })();
      expect(unknown).toBeInstanceOf(DeviceArgumentError);
      await device.eeg.start('client');
      clock.advance(100);
      expect(frames.length).toBeGreaterThan(0);
      expect(frames[0]?.channels).toEqual(device.eeg.config().channels.map(deviceFrameName(device)));
      await device.eeg.stop('client');
    },
  },
  {
    title:
      'a second of device time at 250 Hz is 250 rows per channel (and the one of its last instant) in ~10 ms frames: first flagged, seq and time continuous',
    covers: ['eeg.config', 'eeg.configure', 'eeg.start', 'eeg.state', 'eeg.onFrame'],
    async run({ device, clock, frames }) {
      const channels = device.eeg.config().channels.slice(0, 3);
      await device.eeg.configure({ channels: [...channels], samplingFrequency: 250 });
      await device.eeg.start('client');
      clock.advance(1000);
      const rows = rowsOf(frames);
      // Row k exists from its instant, k × 4 ms: after 1000 ms rows 0 to 250 at most (251). A frame
      // leaves at its last row's instant, so the last rows may wait for the frame they close.
      // Nothing is ever early, nothing is lost.
      expect(rows).toBeGreaterThanOrEqual(245);
      expect(rows).toBeLessThanOrEqual(251);
      expect(frames[0]?.discontinuity).toBe(true);
      for (const [i, frame] of frames.entries()) {
        expect(frame.channels).toEqual(channels.map(deviceFrameName(device)));
        expect(frame.sampleRate).toBe(250);
        expect(frame.data.length / channels.length).toBeLessThanOrEqual(5);
        if (i === 0) continue;
        const previous = frames[i - 1] as Frame;
        expect(frame.seq).toBeGreaterThan(previous.seq);
        expect(frame.discontinuity ?? false).toBe(false);
        const previousRows = previous.data.length / channels.length;
        expect(frame.timestamp - previous.timestamp).toBeCloseTo((previousRows * 1000) / 250, 6);
      }
      expect(device.eeg.state()).toMatchObject({ streaming: true, owners: ['client'], samples: rows });
      clock.advance(1000);
      const total = rowsOf(frames);
      expect(total - rows).toBeGreaterThanOrEqual(245);
      expect(total).toBeGreaterThanOrEqual(495);
      expect(total).toBeLessThanOrEqual(501);
      expect(device.eeg.state().samples).toBe(total);
    },
  },
  {
    title:
      "a frame port carries every frame the device's listeners get, in order, with its samples and channel names; nothing after it is closed",
    covers: ['eeg.framePort', 'eeg.start', 'eeg.stop', 'eeg.onFrame'],
    async run({ device, clock, frames }) {
      const framePort = device.eeg.framePort();
      const carried: DeviceFrameMessage[] = [];
      framePort.port.on('message', (message: DeviceFrameMessage) => carried.push(message));
      await device.eeg.start('client');
      clock.advance(200);
      await device.eeg.stop('client');
      const sent = frames.length;
      expect(sent).toBeGreaterThan(5);
      await eventually(() => carried.length >= sent, 5_000, 'the frames on the port');
      const reader = new DeviceFrameReader();
      carried.slice(0, sent).forEach((message, k) => {
        const frame = reader.read(message);
        const heard = frames[k] as Frame;
        expect([frame.seq, frame.timestamp, frame.channels, Array.from(frame.data)]).toEqual([
          heard.seq,
          heard.timestamp,
          [...heard.channels],
          Array.from(heard.data),
        ]);
      });
      // The names cross with the first frame, then only when they change: the frames after it
      // travel packed in one buffer.
      expect(carried[0]).not.toBeInstanceOf(ArrayBuffer);
      expect(carried[1]).toBeInstanceOf(ArrayBuffer);
      framePort.close();
      await device.eeg.start('client');
      clock.advance(100);
      await device.eeg.stop('client');
      await new Promise((resolve) => setImmediate(resolve));
      expect(carried).toHaveLength(sent);
    },
  },
  {
    title:
      'a device whose frames are made on its acquisition’s thread has no other thread to host streams: its readers run in workers',
    covers: ['eeg.streamThread'],
    async run({ device, clock, frames }) {
      // Each kind runs here on a clock moved by hand, so its frames are made on this thread (the
      // device's own thread, and the host of streams there, are checked in
      // src/device/production/device-thread.test.ts and test/e2e/streams-beside-device.test.ts).
      expect(device.eeg.streamThread()).toBeUndefined();
      await device.eeg.start('client');
      clock.advance(100);
      expect(frames.length).toBeGreaterThan(0);
      expect(device.eeg.streamThread()).toBeUndefined();
      await device.eeg.stop('client');
    },
  },
  {
    title: 'holds are per owner: acquisition stops when the last owner releases it, and no frame follows',
    covers: ['eeg.start', 'eeg.stop', 'eeg.state'],
    async run({ device, clock, frames }) {
      await device.eeg.start('client');
      await device.eeg.start('streams');
      await device.eeg.stop('client');
      clock.advance(100);
      expect(device.eeg.state().streaming).toBe(true);
      await device.eeg.stop('streams');
      expect(device.eeg.state()).toMatchObject({ streaming: false, owners: [] });
      const count = frames.length;
      clock.advance(500);
      expect(frames.length).toBe(count);
    },
  },
  {
    title:
      'a reset restores the configuration the device started with and stops acquisition; while streams hold it only when forced',
    covers: ['eeg.reset', 'eeg.acquiredChannels', 'eeg.configure', 'eeg.config'],
    async run({ device }) {
      const initial = device.eeg.config();
      expect(device.eeg.acquiredChannels()).toEqual(initial.channels);
      const two = initial.channels.slice(0, 2);
      await device.eeg.configure({ channels: [...two] });
      expect(device.eeg.acquiredChannels()).toEqual(two);
      const unknown = await thrown(device.eeg.configure({ channels: ['XX'] }));
      expect(unknown).toBeInstanceOf(DeviceArgumentError);
      expect(unknown).toMatchObject({ code: 'validation_failed', value: 'XX' });
      expect((unknown as DeviceArgumentError).field).toMatch(/^channels(\/0)?$/);
      const gain = await thrown(device.eeg.configure({ gain: 3 }));
      expect(gain).toBeInstanceOf(DeviceArgumentError);
      expect(gain).toMatchObject({ field: 'gain', value: 3 });
      // Every gain of the front end, or only the amplifier's own where it cannot be set from here.
      const allowed = (gain as DeviceArgumentError).allowed;
      expect(allowed).toContain(initial.gain);
      expect([[1, 2, 4, 6, 8, 12, 24], [initial.gain]]).toContainEqual(allowed);
      await device.eeg.start('streams');
      const busy = await thrown(device.eeg.reset());
      expect(busy).toBeInstanceOf(DeviceBusyError);
      expect((busy as DeviceBusyError).heldBy).toEqual({ activity: 'eeg_acquisition', owners: ['streams'] });
      expect(device.eeg.state().streaming).toBe(true);
      expect(await device.eeg.reset({ force: true })).toEqual(initial);
      expect(device.eeg.state()).toMatchObject({ streaming: false, owners: [] });
      expect(device.eeg.acquiredChannels()).toEqual(initial.channels);
    },
  },
  {
    title:
      'impedance is refused while EEG is acquired (DeviceBusyError naming the owners), and measured on device time otherwise',
    needs: ['impedance'],
    covers: ['impedance.measure', 'impedance.measurementMs', 'eeg.start', 'eeg.stop'],
    async run({ device, clock }) {
      await device.eeg.start('client');
      const busy = await thrown(requirePart(device, 'impedance').measure(['O1']));
      expect(busy).toBeInstanceOf(DeviceBusyError);
      expect(busy).toMatchObject({
        code: 'device_busy',
        heldBy: { activity: 'eeg_acquisition', owners: ['client'] },
      });
      await device.eeg.stop('client');
      expect(requirePart(device, 'impedance').measurementMs()).toBeGreaterThan(0);
      const values = await onDeviceTime(clock, requirePart(device, 'impedance').measure(['O1', 'CZ']));
      expect(Object.keys(values)).toEqual(['O1', 'CZ']);
      for (const ohms of Object.values(values)) expect(ohms).toBeGreaterThan(0);
      const unknown = await thrown(requirePart(device, 'impedance').measure(['XX']));
      expect(unknown).toBeInstanceOf(DeviceArgumentError);
      expect(unknown).toMatchObject({ code: 'validation_failed', value: 'XX' });
    },
  },
  {
    title: 'acquisition is refused while a measurement runs, with a DeviceBusyError naming who measures',
    needs: ['impedance'],
    covers: ['impedance.measure', 'impedance.measuring', 'eeg.start'],
    async run({ device, clock }) {
      const measuring = requirePart(device, 'impedance').measure(undefined, {
        holder: 'impedance session 1',
      });
      expect(requirePart(device, 'impedance').measuring()).toBe(true);
      const busy = await thrown(device.eeg.start('client'));
      expect(busy).toBeInstanceOf(DeviceBusyError);
      expect((busy as DeviceBusyError).heldBy).toEqual({
        activity: 'impedance_measurement',
        holder: 'impedance session 1',
      });
      await onDeviceTime(clock, measuring);
      expect(requirePart(device, 'impedance').measuring()).toBe(false);
    },
  },
  {
    title: 'an aborted measurement rejects with the signal’s reason and frees the meter at once',
    needs: ['impedance'],
    covers: ['impedance.measure', 'impedance.measuring'],
    async run({ device, clock }) {
      const controller = new AbortController();
      const measuring = requirePart(device, 'impedance').measure(undefined, { signal: controller.signal });
      expect(requirePart(device, 'impedance').measuring()).toBe(true);
      clock.advance(1);
      controller.abort(new Error('no longer wanted'));
      await expect(measuring).rejects.toThrow('no longer wanted');
      expect(requirePart(device, 'impedance').measuring()).toBe(false);
      await device.eeg.start('client');
      expect(device.eeg.state().streaming).toBe(true);
    },
  },
  {
    title:
      'a measurement is announced as an impedance event with the values in kΩ; an unsubscribed listener hears nothing',
    needs: ['impedance'],
    covers: ['onEvent', 'impedance.measure'],
    async run({ device, clock }) {
      const events: { type: string; data?: Record<string, number> }[] = [];
      const gone: unknown[] = [];
      device.onEvent((event) => events.push(event as never));
      const unsubscribe = device.onEvent((event) => gone.push(event));
      unsubscribe();
      const values = await onDeviceTime(clock, requirePart(device, 'impedance').measure(['O1']));
      const event = events.find((e) => e.type === 'impedance');
      expect(event?.data?.O1).toBeCloseTo((values.O1 ?? 0) / 1000, 1);
      expect(gone).toEqual([]);
    },
  },
];

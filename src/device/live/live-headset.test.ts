/**
 * The live headset's framing on a fake amplifier whose blocks are pushed by hand: exact values in
 * are exact values out across block and frame boundaries, each frame's time is its first row's,
 * lost rows are never filled in (the frame after them is marked and the loss announced), and
 * the link's drops are device events.
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { Frame } from '../../core/frame.js';
import { FakeLiveDriver, sampleValue } from '../../../test/support/fake-live-driver.js';
import type { DeviceEvent, SystemEvent } from '../events.js';
import { DeviceArgumentError, DeviceNotSupportedError } from '../errors.js';
import { type LiveHeadset, openLiveHeadset } from './live-headset.js';
import { capabilities, requirePart } from '../capabilities.js';
import type { Headset } from '../headset.js';

let device: LiveHeadset | undefined;
afterEach(async () => {
  await device?.close();
  device = undefined;
});

async function open(
  driver = new FakeLiveDriver(),
): Promise<{ driver: FakeLiveDriver; frames: Frame[]; events: DeviceEvent[] }> {
  device = await openLiveHeadset(driver);
  const frames: Frame[] = [];
  const events: DeviceEvent[] = [];
  device.eeg.onFrame((frame) => frames.push(frame));
  device.onEvent((event) => events.push(event));
  return { driver, frames, events };
}

function rows(frame: Frame): number {
  return frame.data.length / frame.channels.length;
}

/** Row n of the frames, all concatenated: [the driver's row index, values]. */
function column(frames: readonly Frame[], c: number): number[] {
  return frames.flatMap((f) =>
    Array.from({ length: rows(f) }, (_, r) => f.data[r * f.channels.length + c] as number),
  );
}

/** The driver's column of a channel. */
function columnOf(driver: FakeLiveDriver, name: string): number {
  return driver
    .channels()
    .findIndex((c) => c.name !== undefined && c.name.toUpperCase() === name.toUpperCase());
}

const systemTypes = (events: readonly DeviceEvent[]) =>
  events.filter((e): e is SystemEvent => e.type === 'system').map((e) => e.eventType);

describe('live headset framing', () => {
  test('blocks bigger and smaller than a frame come out as 3-row frames with the exact values, in order', async () => {
    const { driver, frames } = await open();
    await device?.eeg.configure({ channels: ['O2', 'Fp1'] });
    await device?.eeg.start('client');
    // 250 Hz: 3 rows per frame. Blocks of 1, 7, 2 and 5 rows: 15 rows, 5 frames.
    for (const size of [1, 7, 2, 5]) driver.push(size);
    expect(frames.map(rows)).toEqual([3, 3, 3, 3, 3]);
    expect(frames[0]?.channels).toEqual(['O2', 'Fp1']);
    const o2 = columnOf(driver, 'O2');
    const fp1 = columnOf(driver, 'FP1');
    expect(column(frames, 0)).toEqual(Array.from({ length: 15 }, (_, n) => sampleValue(n, o2)));
    expect(column(frames, 1)).toEqual(Array.from({ length: 15 }, (_, n) => sampleValue(n, fp1)));
    expect(frames.map((f) => f.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(frames.map((f) => f.sampleRate)).toEqual([250, 250, 250, 250, 250]);
    expect(device?.eeg.state().samples).toBe(15);
  });

  test("each frame's timestamp is its first row's time from the block it came in", async () => {
    const { driver, frames } = await open();
    await device?.eeg.start('client');
    for (const size of [2, 2, 2, 2, 2, 2]) driver.push(size);
    expect(frames.map((f) => f.timestamp)).toEqual([0, 3, 6, 9].map((n) => driver.rowTime(n)));
  });

  test('lost rows are not filled in: the rows before the loss leave as a short frame, the next is marked and the loss announced', async () => {
    const { driver, frames, events } = await open();
    await device?.eeg.configure({ channels: ['Fp1'] });
    await device?.eeg.start('client');
    driver.push(4);
    driver.lose(10);
    driver.push(6);
    expect(frames.map(rows)).toEqual([3, 1, 3, 3]);
    expect(frames.map((f) => f.discontinuity ?? false)).toEqual([true, false, true, false]);
    const fp1 = columnOf(driver, 'FP1');
    expect(column(frames, 0)).toEqual([0, 1, 2, 3, 14, 15, 16, 17, 18, 19].map((n) => sampleValue(n, fp1)));
    expect(frames[2]?.timestamp).toBe(driver.rowTime(14));
    expect(device?.eeg.state().samples).toBe(10);
    const lost = events.find((e): e is SystemEvent => e.type === 'system' && e.eventType === 'samples_lost');
    expect(lost?.level).toBe('warning');
    expect(lost?.message).toContain('lost 10 samples');
  });

  test('the frame after lost rows says how many were lost (lostSamples), so a recorder does not call the loss a pause', async () => {
    const { driver, frames } = await open();
    await device?.eeg.start('client');
    driver.push(4);
    driver.lose(7);
    driver.push(6);
    expect(frames.map((f) => f.lostSamples)).toEqual([undefined, undefined, 7, undefined]);
  });

  test('GET /system/status keeps the count: amplifier.lostSamples sums every loss, in blocks and as the link drops (was: only in events)', async () => {
    const { driver } = await open();
    expect(device?.status().amplifier).toEqual({ lostSamples: 0, counters: {} });
    await device?.eeg.start('client');
    driver.push(4);
    driver.lose(7);
    driver.push(6);
    driver.lose(3);
    driver.push(2);
    expect(device?.status().amplifier).toEqual({ lostSamples: 10, counters: {} });
    // The driver's own counters, where it has some.
    driver.counters = () => ({ tornPackets: 2 });
    expect(device?.status().amplifier).toEqual({ lostSamples: 10, counters: { tornPackets: 2 } });
  });

  test('a block marked discontinuous (an amplifier reset) starts a marked frame', async () => {
    const { driver, frames } = await open();
    await device?.eeg.start('client');
    driver.push(3);
    driver.push(3, true);
    expect(frames.map((f) => f.discontinuity ?? false)).toEqual([true, true]);
  });

  test('a change of channels while running marks the next frame; a stop delivers the rows held back', async () => {
    const { driver, frames } = await open();
    await device?.eeg.start('client');
    driver.push(4);
    await device?.eeg.configure({ channels: ['Cz'] });
    driver.push(3);
    await device?.eeg.stop('client');
    expect(frames.map(rows)).toEqual([3, 1, 3]);
    expect(frames.map((f) => f.discontinuity ?? false)).toEqual([true, false, true]);
    expect(frames[2]?.channels).toEqual(['Cz']);
    driver.push(3);
    expect(frames).toHaveLength(3);
  });

  test('rows the driver delivers while it stops (a sample it held back) are framed, not dropped', async () => {
    const driver = new FakeLiveDriver();
    const stop = driver.stop.bind(driver);
    driver.stop = async () => {
      driver.push(2);
      await stop();
    };
    const { frames } = await open(driver);
    await device?.eeg.configure({ channels: ['Fp1'] });
    await device?.eeg.start('client');
    driver.push(4);
    await device?.eeg.stop('client');
    const fp1 = columnOf(driver, 'FP1');
    expect(column(frames, 0)).toEqual([0, 1, 2, 3, 4, 5].map((n) => sampleValue(n, fp1)));
    expect(device?.eeg.state().streaming).toBe(false);
  });

  test('the rate is the amplifier’s, the channels those it maps, the gain its own without setGain', async () => {
    await open();
    const eeg = device?.eeg;
    expect(eeg?.config()).toMatchObject({ samplingFrequency: 250, gain: 1 });
    expect(eeg?.config().channels).toHaveLength(19);
    const rate = await eeg?.configure({ samplingFrequency: 500 }).catch((e: unknown) => e);
    expect(rate).toBeInstanceOf(DeviceArgumentError);
    expect(rate).toMatchObject({ field: 'samplingFrequency', allowed: [250] });
    expect((rate as Error).message).toContain("the amplifier's own rate");
    const gain = await eeg?.configure({ gain: 24 }).catch((e: unknown) => e);
    expect(gain).toMatchObject({ field: 'gain', allowed: [1] });
  });

  test('an eeg-source asking for another rate starts acquisition at the amplifier’s (it resamples)', async () => {
    const { driver, frames } = await open();
    const state = await device?.eeg.start('streams', { samplingFrequency: 500, channels: ['Cz'] });
    expect(state?.config).toMatchObject({ samplingFrequency: 250, channels: ['Cz'] });
    driver.push(3);
    expect(frames[0]).toMatchObject({ sampleRate: 250, channels: ['Cz'] });
  });

  test('channels the amplifier does not play are refused, naming those it does', async () => {
    const driver = new FakeLiveDriver({
      channels: [
        { label: 'EXG Channel 0', name: 'C3', type: 'EEG' },
        { label: 'EXG Channel 1', name: 'C4', type: 'EEG' },
        { label: 'EXG Channel 2', name: undefined, type: 'EXG', reason: 'is - in channels=' },
      ],
    });
    await open(driver);
    expect(device?.eeg.config().channels).toEqual(['C3', 'C4']);
    expect(device?.eeg.channels().map((c) => c.name)).toEqual(['C3', 'C4']);
    expect(device?.eeg.unplayedChannels()).toEqual([{ name: 'EXG Channel 2', reason: 'is - in channels=' }]);
    const error = await device?.eeg.configure({ channels: ['c3', 'pz'] }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'validation_failed',
      field: 'channels/1',
      value: 'pz',
      allowed: ['C3', 'C4'],
    });
    expect((error as Error).message).toMatch(/has no channel "pz"; its channels are C3, C4 \(any case\)/);
  });

  test('a gain goes to the driver’s setGain, and a reset sets the amplifier’s first gain again', async () => {
    const driver = new FakeLiveDriver({ gain: true });
    await open(driver);
    expect(device?.eeg.config().gain).toBe(24);
    await device?.eeg.configure({ gain: 8 });
    expect(driver.gains).toEqual([8]);
    await device?.eeg.reset();
    expect(driver.gains).toEqual([8, 24]);
    expect(device?.eeg.config().gain).toBe(24);
  });

  test('the link dropping and coming back are device_lost and device_restored events', async () => {
    const { driver, events } = await open();
    driver.dropLink('the USB dongle was unplugged');
    driver.restoreLink();
    expect(systemTypes(events)).toEqual(['device_lost', 'device_restored']);
    expect((events[0] as SystemEvent).message).toContain('the USB dongle was unplugged');
  });

  test('a device without impedance has no such part, and a caller asking for it is refused naming the device and the part', async () => {
    await open();
    const live: Headset | undefined = device;
    if (live === undefined) throw new Error('not opened');
    expect(live.impedance).toBeUndefined();
    expect(capabilities(live)).toMatchObject({
      eeg: true,
      impedance: false,
      motors: false,
      battery: false,
    });
    const error = await Promise.resolve()
      .then(() => requirePart(live, 'impedance'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeviceNotSupportedError);
    expect(error).toMatchObject({
      code: 'not_supported',
      details: { device: 'The Fake amplifier (the test)', capability: 'impedance' },
    });
    expect(() => requirePart(live, 'motors')).toThrow(/^The Fake amplifier \(the test\) has no motors: /);
    expect(live.status()).toMatchObject({ state: 'idle', battery: null, motors: { moving: [] } });
  });

  test('an amplifier with no channel played as an electrode is refused when opened, and closed again', async () => {
    const driver = new FakeLiveDriver({
      channels: [{ label: 'X', name: undefined, type: 'ACC', reason: 'its unit "g" is not a voltage' }],
    });
    const error = await openLiveHeadset(driver).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'validation_failed' });
    expect((error as Error).message).toContain('no channel it can play (X: its unit "g" is not a voltage)');
    expect(driver.closed).toBe(true);
  });
});

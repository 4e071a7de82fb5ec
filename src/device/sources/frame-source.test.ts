import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { headsetFrameSource } from './frame-source.js';
import { selectChannels } from '../../core/frame-subscription.js';
import type { SimulatedHeadset } from '../simulated/index.js';
import type { Frame } from '../../core/frame.js';
import { advance, fakeTimeHeadset } from '../../../test/support/device.js';

let headset: SimulatedHeadset;

beforeEach(() => {
  vi.useFakeTimers();
  headset = fakeTimeHeadset();
});

afterEach(async () => {
  await headset.close();
  vi.useRealTimers();
});

describe('headsetFrameSource', () => {
  it('starts acquisition at the first subscriber’s rate and stops after the last unsubscribes', async () => {
    const source = headsetFrameSource(headset);
    const a: Frame[] = [];
    const b: Frame[] = [];
    const stopA = await source.subscribe({ channels: ['o1', 'FP1'], sampleRate: 500 }, (f) => a.push(f));
    const stopB = await source.subscribe({ channels: [], sampleRate: 1000 }, (f) => b.push(f));
    expect(headset.eeg.state()).toMatchObject({
      streaming: true,
      owners: ['streams'],
      config: { samplingFrequency: 500 },
    });
    await advance(100);
    expect(a[0]).toMatchObject({ channels: ['O1', 'Fp1'], sampleRate: 500 });
    expect(a[0]!.data.length).toBe(5 * 2);
    expect(b[0]!.channels).toHaveLength(19);
    expect(a[0]!.data[0]).toBe(b[0]!.data[b[0]!.channels.indexOf('O1')]);
    stopA();
    stopA();
    expect(headset.eeg.state().streaming).toBe(true);
    stopB();
    await advance(10);
    expect(headset.eeg.state().streaming).toBe(false);
  });

  it('never stops a client’s acquisition', async () => {
    await headset.eeg.start('client');
    const unsubscribe = await headsetFrameSource(headset).subscribe({ channels: ['CZ'] }, () => undefined);
    unsubscribe();
    await advance(10);
    expect(headset.eeg.state()).toMatchObject({ streaming: true, owners: ['client'] });
  });

  it('refuses unknown channels and passes on device_busy', async () => {
    const source = headsetFrameSource(headset);
    await expect(source.subscribe({ channels: ['XYZ'] }, () => undefined)).rejects.toMatchObject({
      code: 'validation_failed',
    });
    const measuring = headset.impedance.measure(['O1']);
    await expect(source.subscribe({ channels: ['O1'] }, () => undefined)).rejects.toMatchObject({
      code: 'device_busy',
    });
    await advance(100);
    await measuring;
    const unsubscribe = await source.subscribe({ channels: ['O1'] }, () => undefined);
    expect(headset.eeg.state().streaming).toBe(true);
    unsubscribe();
  });

  it('a subscription never gets fewer channels than it asked for: refused at once when the device does not acquire them', async () => {
    await headset.eeg.configure({ channels: ['PZ', 'O1', 'O2', 'P3'] });
    const source = headsetFrameSource(headset);
    await expect(source.subscribe({ channels: ['o1', 'Fp1', 'CZ'] }, () => undefined)).rejects.toMatchObject({
      code: 'channels_unavailable',
      details: { channels: ['FP1', 'CZ'], acquired: ['PZ', 'O1', 'O2', 'P3'], field: 'channels/1' },
    });
    // Refused before any hold was taken.
    expect(headset.eeg.state().streaming).toBe(false);
  });

  it('a subscription never gets fewer channels than it asked for: frames held while the device drops one, then a discontinuity', async () => {
    await headset.eeg.configure({ channels: ['PZ', 'O1', 'O2'] });
    const source = headsetFrameSource(headset);
    const frames: Frame[] = [];
    const conditions: (string | undefined)[] = [];
    const everything: Frame[] = [];
    const unsubscribe = await source.subscribe(
      { channels: ['O2', 'PZ'] },
      (f) => frames.push(f),
      (c) => conditions.push(c),
    );
    // Without a list: the channels acquired at the first frame, kept.
    const unsubscribeAll = await source.subscribe({ channels: [] }, (f) => everything.push(f));
    await advance(50);
    expect(frames.length).toBeGreaterThan(0);
    await headset.eeg.configure({ channels: ['PZ', 'O1'] });
    const before = frames.length;
    const beforeAll = everything.length;
    await advance(100);
    expect(frames.length).toBe(before);
    expect(everything.length).toBe(beforeAll);
    expect(conditions).toHaveLength(1);
    expect(conditions[0]).toContain('no longer acquires O2');
    await headset.eeg.configure({ channels: ['O2', 'O1', 'PZ'] });
    await advance(50);
    expect(conditions).toEqual([conditions[0], undefined]);
    expect(frames.length).toBeGreaterThan(before);
    expect(frames[before]).toMatchObject({ channels: ['O2', 'Pz'], discontinuity: true });
    for (const f of frames) expect(f.channels).toEqual(['O2', 'Pz']);
    for (const f of everything) expect(f.channels).toEqual(['Pz', 'O1', 'O2']);
    unsubscribe();
    unsubscribeAll();
  });

  it('a forced reset under the streams is reported, and acquisition is taken again', async () => {
    const source = headsetFrameSource(headset);
    const frames: Frame[] = [];
    const conditions: (string | undefined)[] = [];
    const unsubscribe = await source.subscribe(
      { channels: ['CZ'], sampleRate: 500 },
      (f) => frames.push(f),
      (c) => conditions.push(c),
    );
    await advance(50);
    await expect(headset.eeg.reset()).rejects.toMatchObject({
      code: 'device_busy',
      details: { heldBy: { owners: ['streams'] } },
    });
    await headset.eeg.reset({ force: true });
    expect(conditions[0]).toContain('forced reset');
    const before = frames.length;
    await advance(50);
    expect(headset.eeg.state()).toMatchObject({ streaming: true, owners: ['streams'] });
    expect(conditions).toEqual([conditions[0], undefined]);
    expect(frames[before]).toMatchObject({ channels: ['Cz'], sampleRate: 250, discontinuity: true });
    unsubscribe();
    await advance(10);
    expect(headset.eeg.state().streaming).toBe(false);
  });

  it('after a forced reset, a device that refuses the streams at first is asked again until it accepts', async () => {
    const source = headsetFrameSource(headset);
    const frames: Frame[] = [];
    const conditions: (string | undefined)[] = [];
    const unsubscribe = await source.subscribe(
      { channels: ['CZ'] },
      (f) => frames.push(f),
      (c) => conditions.push(c),
    );
    const start = vi.spyOn(headset.eeg, 'start');
    start.mockRejectedValueOnce(new Error('busy measuring impedance'));
    await headset.eeg.reset({ force: true });
    await advance(500);
    expect(headset.eeg.state().streaming).toBe(false);
    expect(conditions).toHaveLength(1);
    const before = frames.length;
    await advance(600);
    expect(start).toHaveBeenCalledTimes(2);
    expect(headset.eeg.state()).toMatchObject({ streaming: true, owners: ['streams'] });
    expect(conditions).toEqual([conditions[0], undefined]);
    expect(frames[before]).toMatchObject({ channels: ['Cz'], discontinuity: true });
    unsubscribe();
  });

  it('selectChannels returns the same frame when nothing changes', () => {
    const frame: Frame = {
      seq: 0,
      timestamp: 0,
      sampleRate: 250,
      channels: ['A', 'B'],
      data: new Float32Array([1, 2, 3, 4]),
    };
    expect(selectChannels(frame, ['A', 'B'])).toBe(frame);
    expect(Array.from(selectChannels(frame, ['B']).data)).toEqual([2, 4]);
  });
});

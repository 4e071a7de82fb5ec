import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { headsetFrameSource, selectChannels } from './frame-source.js';
import type { SimulatedHeadset } from './simulated/index.js';
import type { Frame } from '../core/frame.js';
import { advance, fakeTimeHeadset } from '../../test/support/device.js';

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

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { adcLsbMicrovolts } from '../adc.js';
import { channelName, EEG_ELECTRODES } from '../../core/electrodes.js';
import type { SimulatedHeadset } from './index.js';
import type { Frame } from '../../core/frame.js';
import {
  advance,
  bandPower,
  channelSamples,
  collectFrames,
  fakeTimeHeadset,
  pressTo,
  rms,
} from '../../../test/support/device.js';

/**
 * Properties measured on 20 s of simulated EEG at 1000 Hz, gain 24, with every electrode pressed
 * 15 steps past its contact, except C3, which barely touches (2 steps: about 200 kΩ), and T4,
 * which is off the scalp (a floating input).
 */
const RATE = 1000;
let headset: SimulatedHeadset;
let frames: Frame[];

beforeAll(async () => {
  vi.useFakeTimers();
  headset = fakeTimeHeadset({ seed: 7 });
  await pressTo(headset, { C3: 2, T4: -10 });
  await headset.eeg.configure({ samplingFrequency: RATE, gain: 24 });
  frames = collectFrames(headset);
  await headset.eeg.start('client');
  await advance(20_000);
  await headset.eeg.stop('client');
});

afterAll(async () => {
  await headset.close();
  vi.useRealTimers();
});

describe('simulated EEG signal', () => {
  it('has a background of about 10-20 µV RMS on well-contacted channels', () => {
    for (const channel of ['Cz', 'F4', 'C4']) {
      const value = rms(channelSamples(frames, channel));
      expect(value, channel).toBeGreaterThan(8);
      expect(value, channel).toBeLessThan(25);
    }
  });

  it('has a 1/f background: more power at 2-4 Hz than at 20-22 Hz', () => {
    const c4 = channelSamples(frames, 'C4');
    expect(bandPower(c4, RATE, 2, 4)).toBeGreaterThan(3 * bandPower(c4, RATE, 20, 22));
  });

  it('has an alpha peak near 10 Hz on O1, far stronger than on FP1 and than beside it', () => {
    const o1 = channelSamples(frames, 'O1');
    const fp1 = channelSamples(frames, 'Fp1');
    const alphaO1 = bandPower(o1, RATE, 8.5, 11.5);
    expect(alphaO1).toBeGreaterThan(4 * bandPower(fp1, RATE, 8.5, 11.5));
    expect(alphaO1).toBeGreaterThan(4 * bandPower(o1, RATE, 14, 17));
    expect(alphaO1).toBeGreaterThan(3 * bandPower(channelSamples(frames, 'F3'), RATE, 8.5, 11.5));
  });

  it('shows 50 Hz mains, stronger on a high-impedance electrode', () => {
    const c3 = channelSamples(frames, 'C3');
    const c4 = channelSamples(frames, 'C4');
    const mainsC3 = bandPower(c3, RATE, 49.5, 50.5);
    expect(headset.simulation.trueImpedance('C3')).toBeGreaterThan(
      10 * headset.simulation.trueImpedance('C4'),
    );
    expect(mainsC3).toBeGreaterThan(20 * bandPower(c4, RATE, 49.5, 50.5));
    expect(mainsC3).toBeGreaterThan(20 * bandPower(c3, RATE, 44.5, 45.5));
  });

  it('has more broadband noise on a high-impedance electrode', () => {
    const c3 = channelSamples(frames, 'C3');
    const c4 = channelSamples(frames, 'C4');
    expect(bandPower(c3, RATE, 300, 400)).toBeGreaterThan(3 * bandPower(c4, RATE, 300, 400));
  });

  it('shows eye blinks of about 100 µV on FP1/FP2 every few seconds, decaying toward central sites', () => {
    const fp1 = channelSamples(frames, 'Fp1');
    // Blink onsets: FP1 crossing 60 µV, at least 0.5 s after the previous one.
    const onsets: number[] = [];
    for (let i = 1; i < fp1.length; i++) {
      if ((fp1[i] ?? 0) > 60 && (fp1[i - 1] ?? 0) <= 60 && i - (onsets.at(-1) ?? -Infinity) > RATE / 2)
        onsets.push(i);
    }
    expect(onsets.length).toBeGreaterThanOrEqual(3);
    expect(onsets.length).toBeLessThanOrEqual(12);
    // Blink-locked averages: the blink at its peak on FP2, FZ and CZ.
    const average = (channel: string): Float64Array => {
      const x = channelSamples(frames, channel);
      const window = new Float64Array(RATE / 2);
      const used = onsets.filter((o) => o >= 100 && o + 400 < x.length);
      for (const onset of used)
        for (let i = 0; i < window.length; i++) window[i]! += (x[onset - 100 + i] ?? 0) / used.length;
      return window;
    };
    const fp2 = average('Fp2');
    const peak = fp2.indexOf(Math.max(...fp2));
    const fz = average('Fz')[peak]!;
    const cz = average('Cz')[peak]!;
    expect(fp2[peak]).toBeGreaterThan(60);
    expect(fp2[peak]).toBeLessThan(200);
    expect(fz).toBeLessThan(0.75 * fp2[peak]!);
    expect(fz).toBeGreaterThan(0.15 * fp2[peak]!);
    expect(cz).toBeLessThan(0.4 * fp2[peak]!);
  });

  it('shows a floating input off the scalp: large mains and drift', () => {
    const t4 = channelSamples(frames, 'T4');
    const t3 = channelSamples(frames, 'T3');
    expect(rms(t4)).toBeGreaterThan(10 * rms(t3));
    expect(bandPower(t4, RATE, 49.5, 50.5)).toBeGreaterThan(1000 * bandPower(t3, RATE, 49.5, 50.5));
  });

  it('is quantised to the 24-bit ADC step at gain 24', () => {
    const lsb = adcLsbMicrovolts(24);
    expect(lsb).toBeCloseTo(9_000_000 / 24 / 2 ** 24, 12);
    // Float32 keeps 24 significant bits: a code times the step comes back within a few parts in 1e7.
    let worst = 0;
    let distinct = 0;
    const seen = new Set<number>();
    for (const frame of frames.slice(0, 500)) {
      for (const value of frame.data) {
        const codes = value / lsb;
        worst = Math.max(worst, Math.abs(codes - Math.round(codes)) / Math.max(1, Math.abs(codes)));
        if (!seen.has(value)) distinct++;
        seen.add(value);
      }
    }
    expect(worst).toBeLessThan(1e-6);
    expect(distinct).toBeGreaterThan(1000);
  });

  it('delivers ~10 ms frames with 10-20 channel names (Fp1, Cz), counted seq and sample-exact timestamps', () => {
    expect(frames[0]?.discontinuity).toBe(true);
    expect(frames.slice(1).every((f) => f.discontinuity === undefined)).toBe(true);
    const first = frames[0]!;
    expect(first.channels).toEqual(EEG_ELECTRODES.map(channelName));
    expect(first.sampleRate).toBe(RATE);
    expect(first.data.length).toBe(10 * 19);
    frames.forEach((frame, i) => {
      expect(frame.seq).toBe(first.seq + i);
      expect(frame.timestamp).toBeCloseTo(first.timestamp + i * 10, 6);
    });
    expect(frames.length * 10).toBe(20_000);
  });
});

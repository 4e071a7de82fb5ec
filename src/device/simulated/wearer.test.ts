/**
 * The simulated wearer's visual responses. Two sources with the same seed draw the same random
 * numbers, so the difference between one that was shown a flicker and one that was not is exactly
 * the SSVEP the model added: its onset, ramp, harmonics and topography are read off it.
 */
import { describe, expect, test } from 'vitest';
import type { Electrode } from '../../core/electrodes.js';
import { SimulatedEegSource } from './eeg.js';
import { Random } from './random.js';
import { WearerModel } from './wearer.js';

const RATE = 250;
const CHANNELS: Electrode[] = ['O1', 'O2', 'PZ', 'FZ'];
const IMPEDANCE = 5_000;

/** `seconds` of samples, `act` called on the wearer at time `at` ms (the device clock). */
function record(seconds: number, act: ((w: WearerModel) => void) | undefined, at: number) {
  let now = 0;
  const random = new Random(11, 'headset');
  const wearer = new WearerModel(random.fork('wearer'), () => now);
  const source = new SimulatedEegSource(random.fork('eeg'), { wearer });
  source.begin(RATE, CHANNELS);
  const rows = seconds * RATE;
  const data = new Float32Array(rows * CHANNELS.length);
  for (let first = 0; first < rows; first += 10) {
    now = (first * 1000) / RATE;
    if (act !== undefined && now === at) act(wearer);
    source.fill(data.subarray(first * CHANNELS.length, (first + 10) * CHANNELS.length), 10, {
      time: now,
      impedance: () => IMPEDANCE,
    });
  }
  return { data, wearer };
}

/** Least-squares amplitude of a sine at f over rows [from, to) of column c. */
function amplitude(x: Float32Array, c: number, f: number, from: number, to: number): number {
  let s = 0;
  let k = 0;
  for (let i = from; i < to; i++) {
    const v = x[i * CHANNELS.length + c] as number;
    s += v * Math.sin((2 * Math.PI * f * i) / RATE);
    k += v * Math.cos((2 * Math.PI * f * i) / RATE);
  }
  return (2 * Math.hypot(s, k)) / (to - from);
}

describe('the simulated wearer', () => {
  test('a flicker adds an SSVEP at f, 2f, 3f (3, 1.5, 0.75 µV at O1) after a 100–200 ms latency and a ramp, strongest occipitally', () => {
    const at = 2000;
    const plain = record(8, (w) => w.lookAt({ frequency: 12, amplitude: 0 }), at).data;
    const { data, wearer } = record(8, (w) => w.lookAt({ frequency: 12 }), at);
    const diff = data.map((v, i) => v - (plain[i] as number));
    // Nothing changes before the response begins; it begins latencyMs after the request.
    const O1 = 0;
    const firstChanged = Array.from({ length: diff.length / CHANNELS.length }, (_, i) => i).find(
      (i) => Math.abs(diff[i * CHANNELS.length + O1] as number) > 1e-3,
    ) as number;
    const onsetMs = (firstChanged * 1000) / RATE - at;
    expect(onsetMs).toBeGreaterThanOrEqual(wearer.latencyMs - 4);
    expect(onsetMs).toBeLessThanOrEqual(wearer.latencyMs + 8);
    expect(wearer.latencyMs).toBeGreaterThanOrEqual(100);
    expect(wearer.latencyMs).toBeLessThanOrEqual(200);
    // After the 300 ms ramp: the harmonics' amplitudes at O1 (coupling 1/(1 + 5 kΩ/1 MΩ)).
    const from = Math.ceil(((at + wearer.latencyMs + 300) * RATE) / 1000);
    const to = 8 * RATE;
    const coupling = 1 / (1 + IMPEDANCE / 1_000_000);
    expect(amplitude(diff, O1, 12, from, to)).toBeCloseTo(3 * coupling, 1);
    expect(amplitude(diff, O1, 24, from, to)).toBeCloseTo(1.5 * coupling, 1);
    expect(amplitude(diff, O1, 36, from, to)).toBeCloseTo(0.75 * coupling, 1);
    // Half-way through the ramp it is about half as large.
    const mid = Math.round(((at + wearer.latencyMs + 150) * RATE) / 1000);
    expect(amplitude(diff, O1, 12, mid - 3, mid + 3)).toBeLessThan(3);
    // Topography: Pz 0.55 of O1, Fz 0.05.
    expect(amplitude(diff, 2, 12, from, to) / amplitude(diff, O1, 12, from, to)).toBeCloseTo(0.55, 2);
    expect(amplitude(diff, 3, 12, from, to) / amplitude(diff, O1, 12, from, to)).toBeCloseTo(0.05, 2);
  });

  test('attending a flicker halves the alpha and more (alpha blocking to 0.4)', () => {
    const at = 2000;
    const plain = record(8, undefined, at).data;
    const { data, wearer } = record(8, (w) => w.lookAt({ frequency: 12, amplitude: 0 }), at);
    const from = Math.ceil(((at + wearer.latencyMs + 300) * RATE) / 1000);
    const alpha = (x: Float32Array) =>
      Math.max(...Array.from({ length: 21 }, (_, k) => amplitude(x, 0, 9.5 + k * 0.05, from, 8 * RATE)));
    expect(alpha(data) / alpha(plain)).toBeCloseTo(0.4, 1);
  });

  test('eyes closed: the occipital alpha grows to 10–40 µV peak, more at O1 than at Fz', () => {
    const at = 2000;
    const { data, wearer } = record(12, (w) => w.setEyes('closed'), at);
    const rms = (c: number, from: number, to: number) => {
      let sum = 0;
      for (let i = from; i < to; i++) sum += (data[i * CHANNELS.length + c] as number) ** 2;
      return Math.sqrt(sum / (to - from));
    };
    // The alpha's peak at O1: the amplitude at the head's alpha frequency, searched 9.5–10.5 Hz.
    const peakAlpha = (c: number, from: number, to: number) =>
      Math.max(...Array.from({ length: 21 }, (_, k) => amplitude(data, c, 9.5 + k * 0.05, from, to)));
    const before = peakAlpha(0, 0, at / 4);
    const after = peakAlpha(0, Math.ceil((at + wearer.latencyMs + 500) / 4), 12 * RATE);
    expect(after).toBeGreaterThan(1.8 * before);
    expect(after).toBeGreaterThanOrEqual(10);
    expect(after).toBeLessThanOrEqual(40);
    expect(rms(0, 1000, 3000)).toBeGreaterThan(rms(3, 1000, 3000));
    expect(peakAlpha(3, 1000, 3000)).toBeLessThan(after / 3);
  });
});

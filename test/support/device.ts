/** Shared helpers of the device tests: a headset on fake time, frame collection, spectra. */
import { vi } from 'vitest';
import { dateClock } from '../../src/device/clock.js';
import type { Electrode } from '../../src/core/electrodes.js';
import { ELECTRODES } from '../../src/core/electrodes.js';
import type { DeviceEvent } from '../../src/device/events.js';
import {
  createSimulatedHeadset,
  type SimulatedHeadset,
  type SimulatedHeadsetOptions,
} from '../../src/device/simulated/index.js';
import type { Frame } from '../../src/core/frame.js';

/** A simulated headset on vitest's fake timers (call `vi.useFakeTimers()` first). */
export function fakeTimeHeadset(options: SimulatedHeadsetOptions = {}): SimulatedHeadset {
  return createSimulatedHeadset({ seed: 42, clock: dateClock(), ...options });
}

/** Advances fake time in steps (so timers fire in order) and lets promise callbacks run. */
export async function advance(ms: number, step = 1000): Promise<void> {
  let left = ms;
  while (left > 0) {
    const now = Math.min(step, left);
    await vi.advanceTimersByTimeAsync(now);
    left -= now;
  }
}

export function collectEvents(headset: SimulatedHeadset): DeviceEvent[] {
  const events: DeviceEvent[] = [];
  headset.onEvent((event) => events.push(event));
  return events;
}

export function collectFrames(headset: SimulatedHeadset): Frame[] {
  const frames: Frame[] = [];
  headset.eeg.onFrame((frame) => frames.push(frame));
  return frames;
}

/** One column of a run of frames (all of one channel layout). */
export function channelSamples(frames: readonly Frame[], channel: string): Float64Array {
  const total = frames.reduce((n, f) => n + f.data.length / f.channels.length, 0);
  const out = new Float64Array(total);
  let i = 0;
  for (const frame of frames) {
    const width = frame.channels.length;
    const column = frame.channels.indexOf(channel);
    if (column < 0) throw new Error(`no channel ${channel}`);
    for (let row = 0; row < frame.data.length / width; row++)
      out[i++] = frame.data[row * width + column] ?? 0;
  }
  return out;
}

/**
 * Moves every electrode to `depths[electrode]` (else `fallback`) steps past its own contact
 * position (negative: off the scalp) and waits for the moves.
 */
export async function pressTo(
  headset: SimulatedHeadset,
  depths: Partial<Record<Electrode, number>>,
  fallback = 15,
): Promise<void> {
  const positions = headset.motors.positions();
  const configuration = ELECTRODES.map((electrode) => {
    const target = headset.simulation.contactPosition(electrode) + (depths[electrode] ?? fallback);
    const delta = target - (positions[electrode] ?? 0);
    return {
      electrode,
      movement: delta >= 0 ? 'RELEASE' : 'RETRACT',
      displacement: Math.max(0.001, Math.abs(delta)),
    };
  });
  await headset.motors.move(configuration);
  const done = headset.motors.waitUntilComplete();
  await advance(6000);
  await done;
}

export function rms(x: Float64Array): number {
  let mean = 0;
  for (const v of x) mean += v;
  mean /= x.length;
  let sum = 0;
  for (const v of x) sum += (v - mean) ** 2;
  return Math.sqrt(sum / x.length);
}

/** Power at DFT bin `k` of a segment (Goertzel), after a Hann window. */
function goertzel(segment: Float64Array, k: number): number {
  const n = segment.length;
  const w = (2 * Math.PI * k) / n;
  const coeff = 2 * Math.cos(w);
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < n; i++) {
    const hann = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n);
    const s0 = (segment[i] ?? 0) * hann + coeff * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  return (s1 * s1 + s2 * s2 - coeff * s1 * s2) / (n * n);
}

/**
 * Power between `low` and `high` Hz (inclusive), Welch-style: the mean over 2-s segments
 * (0.5 Hz bins) of the Hann-windowed bin powers, summed over the band's bins. Relative units.
 */
export function bandPower(x: Float64Array, sampleRate: number, low: number, high: number): number {
  const n = 2 * sampleRate;
  const segments = Math.floor(x.length / n);
  if (segments === 0) throw new Error('signal shorter than one 2-s segment');
  let total = 0;
  for (let s = 0; s < segments; s++) {
    const segment = x.subarray(s * n, (s + 1) * n);
    for (let k = Math.round((low * n) / sampleRate); k <= Math.round((high * n) / sampleRate); k++) {
      total += goertzel(segment, k);
    }
  }
  return total / segments;
}

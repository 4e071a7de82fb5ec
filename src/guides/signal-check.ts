/**
 * A short look at one EEG channel for POST /electrodes/diagnose: about a second of samples, their
 * RMS (µV, mean removed) and the amplitude of mains interference (µV at 50 or 60 Hz, whichever is
 * larger, by the Goertzel algorithm).
 */
import { channelName, type Electrode } from '../core/electrodes.js';
import type { Headset } from '../device/headset.js';
import type { Frame } from '../core/frame.js';

export interface SignalFigures {
  noiseRms: number;
  lineNoise: number;
}

/** Amplitude (µV) of the sinusoid at `frequency` in `samples` taken at `rate`. */
export function toneAmplitude(samples: readonly number[], rate: number, frequency: number): number {
  const n = samples.length;
  if (n === 0) return 0;
  const w = (2 * Math.PI * frequency) / rate;
  let re = 0;
  let im = 0;
  for (let i = 0; i < n; i++) {
    const v = samples[i] ?? 0;
    re += v * Math.cos(w * i);
    im -= v * Math.sin(w * i);
  }
  return (2 * Math.hypot(re, im)) / n;
}

export function signalFigures(samples: readonly number[], rate: number): SignalFigures {
  const mean = samples.reduce((a, b) => a + b, 0) / Math.max(1, samples.length);
  const centred = samples.map((v) => v - mean);
  const rms = Math.sqrt(centred.reduce((a, v) => a + v * v, 0) / Math.max(1, centred.length));
  const line = Math.max(toneAmplitude(centred, rate, 50), toneAmplitude(centred, rate, 60));
  return { noiseRms: Math.round(rms * 100) / 100, lineNoise: Math.round(line * 100) / 100 };
}

/**
 * Collects `durationMs` of one channel. Starts acquisition for the client when nothing acquires
 * and stops it afterwards; joins a running acquisition otherwise. Undefined when the electrode has
 * no channel in the acquired configuration.
 */
export async function sampleChannel(
  device: Headset,
  electrode: Electrode,
  durationMs = 1000,
): Promise<SignalFigures | undefined> {
  const startedHere = !device.eeg.state().streaming;
  const samples: number[] = [];
  let rate = 0;
  const unsubscribe = device.eeg.onFrame((frame: Frame) => {
    const column = frame.channels.indexOf(channelName(electrode));
    if (column < 0) return;
    if (frame.discontinuity === true) samples.length = 0;
    rate = frame.sampleRate;
    const width = frame.channels.length;
    for (let i = column; i < frame.data.length; i += width) samples.push(frame.data[i] ?? 0);
  });
  try {
    if (startedHere) await device.eeg.start('client');
    await new Promise((resolve) => setTimeout(resolve, durationMs));
  } finally {
    unsubscribe();
    if (startedHere) await device.eeg.stop('client');
  }
  return samples.length === 0 || rate === 0 ? undefined : signalFigures(samples, rate);
}

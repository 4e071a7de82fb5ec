/** Shared helpers of the recorder tests: the generator's exact values, file readers. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { EdfReader } from '../../src/formats/edf-reader.js';

/** A fresh data dir, removed after the calling file's tests. */
export function tempDataDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `${prefix}-`));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** Sample k of a noise-free signal generator (float32 as it emits it). */
export function generatorSample(
  k: number,
  rate: number,
  amplitudes: number[],
  frequencies: number[],
): number {
  let value = 0;
  frequencies.forEach((f, i) => {
    value += (amplitudes[i] ?? 0) * Math.sin(2 * Math.PI * (((f * k) / rate) % 1));
  });
  return Math.fround(value);
}

export interface EdfContent {
  labels: string[];
  units: string[];
  physicalMax: number[];
  rate: number;
  start: number;
  /** Per channel, every sample in the file (padding included). */
  signals: Float64Array[];
  /** Half a quantisation step per channel. */
  halfStep: number[];
  annotations: { onset: number; duration: number | undefined; text: string }[];
}

export function readEdf(file: string): EdfContent {
  const reader = EdfReader.open(file);
  try {
    const s = reader.signals;
    return {
      labels: s.map((x) => x.label),
      units: s.map((x) => x.physicalDimension),
      physicalMax: s.map((x) => x.physicalMax),
      rate: s[0]?.sampleRate ?? 0,
      start: reader.startTime.getTime(),
      signals: s.map((_, i) => reader.readSignal(i)),
      halfStep: s.map((x) => (x.physicalMax - x.physicalMin) / (x.digitalMax - x.digitalMin) / 2),
      annotations: reader.readAnnotations(),
    };
  } finally {
    reader.close();
  }
}

export function readJson(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

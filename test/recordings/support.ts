/**
 * Shared helpers of the recorder tests: the generator's exact values, file readers, a recorder
 * node driven directly (no worker) with the frames it is fed.
 */
import { readFileSync } from 'node:fs';
import { createRecorder } from '../../src/streams/executables/recorder.js';
import { EdfReader } from '../../src/formats/edf-reader.js';
import type { Frame } from '../../src/core/frame.js';
import type { NodeContext, NodeInstance } from '../../src/core/node.js';

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

export interface Harness {
  node: NodeInstance;
  info: Record<string, unknown>;
  /** The node's own counters (NodeContext.countMetric). */
  metrics: Record<string, number>;
  /** Its warnings (NodeContext.warn). */
  warnings: string[];
  logs: string[];
  failures: Error[];
}

/** A recorder node writing into `<dataDir>/recordings`, with what it reports collected. */
export function recorderHarness(
  dataDir: string,
  config: Record<string, unknown>,
  ids = { streamId: 'stream-a', nodeId: 'rec' },
): Harness {
  const harness: Omit<Harness, 'node'> = { info: {}, metrics: {}, warnings: [], logs: [], failures: [] };
  const context: NodeContext = {
    ...ids,
    config,
    dataDir,
    emit: () => undefined,
    log: (line) => harness.logs.push(line),
    fail: (error) => harness.failures.push(error),
    setInfo: (info) => Object.assign(harness.info, info),
    countDropped: () => undefined,
    countMetric: (name, amount) => {
      harness.metrics[name] = (harness.metrics[name] ?? 0) + amount;
    },
    warn: (message) => harness.warnings.push(message),
    trackProcessGroup: () => undefined,
    untrackProcessGroup: () => undefined,
  };
  return { node: createRecorder(context), ...harness };
}

/** Time of sample 0 of {@link frame}: an hour ahead of the clock, so a marker's arrival precedes it. */
export const FRAME_T0 = Math.floor(Date.now() / 1000) * 1000 + 3_600_000;

/** A frame of samples `start` … `start + samples - 1` (values `value(k)`), stamped from FRAME_T0. */
export function frame(
  seq: number,
  start: number,
  rate: number,
  channels: string[],
  samples: number,
  value: (k: number) => number,
  extra: Partial<Frame> = {},
): Frame {
  const data = new Float32Array(samples * channels.length);
  for (let k = 0; k < samples; k++)
    for (let c = 0; c < channels.length; c++) data[k * channels.length + c] = value(start + k);
  return { seq, timestamp: FRAME_T0 + (start * 1000) / rate, sampleRate: rate, channels, data, ...extra };
}

/** Feeds `seconds` of 100 ms frames of channels A and B; returns the next seq. */
export function feed(
  node: NodeInstance,
  rate: number,
  seconds: number,
  extra: Partial<Frame> = {},
  value = (k: number) => Math.sin(k / 5) * 50,
  seq0 = 0,
): number {
  const per = rate / 10;
  let seq = seq0;
  for (let i = 0; i < seconds * 10; i++, seq++)
    node.onFrame?.('in', frame(seq, (seq - seq0) * per, rate, ['A', 'B'], per, value, extra));
  return seq;
}

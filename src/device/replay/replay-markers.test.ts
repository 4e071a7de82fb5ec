/**
 * What the replay device plays of an EDF+ file the project's own writer made: only the recorded
 * samples (it played the last record's padding after `Recording ends`, a flat line each loop), and
 * the file's annotations and its trigger channel's codes, announced as `marker` events at their
 * samples (they were dropped).
 */
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import type { Frame } from '../../core/frame.js';
import { EdfWriter } from '../../formats/edf-writer.js';
import type { DeviceEvent, MarkerEvent } from '../events.js';
import { writeTestEdf } from '../../../test/support/write-edf.js';
import { createReplayHeadset, ManualClock, type ReplayHeadset } from './index.js';
import { scratchDir } from '../../../test/support/scratch.js';

const dir = scratchDir('headsetd-replay-markers');
const RATE = 100;
/** 2.1 s: two whole 1-s records and 0.1 s of a third, which the writer pads to 1 s. */
const SAMPLES = 210;
/** Sample k of the file: never the padding's value (the last sample repeated). */
const value = (k: number): number => 10 + k;

/** An EDF+ file as the recorder writes it: annotations, the last record padded, `Recording ends`. */
function recordFile(name: string, notes: { onset: number; text: string; duration?: number }[]): string {
  const file = path.join(dir, name);
  const writer = EdfWriter.open(file, {
    format: 'edf',
    sampleRate: RATE,
    channels: ['O1', 'Cz'].map((label) => ({ label, physicalMin: -500, physicalMax: 500 })),
    startTime: new Date('2026-11-21T09:30:15.000Z'),
  });
  const data = new Float32Array(SAMPLES * 2);
  for (let k = 0; k < SAMPLES; k++) {
    data[2 * k] = value(k);
    data[2 * k + 1] = -value(k);
  }
  writer.write(data, SAMPLES);
  for (const note of notes) writer.annotate(note.onset, note.text, note.duration);
  writer.close();
  return file;
}

let device: ReplayHeadset | undefined;
afterEach(async () => {
  await device?.close();
  device = undefined;
});

async function play(file: string, ms: number): Promise<{ frames: Frame[]; events: DeviceEvent[] }> {
  const clock = new ManualClock();
  device = createReplayHeadset(file, { clock });
  const frames: Frame[] = [];
  const events: DeviceEvent[] = [];
  device.eeg.onFrame((frame) => frames.push(frame));
  device.onEvent((event) => events.push(event));
  await device.eeg.start('client');
  for (let t = 0; t < ms; t += 10) {
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(10);
  }
  await device.eeg.stop('client');
  return { frames, events };
}

/** Stored values are 16-bit: 1000/65535 µV per step. */
const stored = (k: number) => expect.closeTo(value(k), 1);

test('replay plays no padding after "Recording ends" (it played 0.79 s of flat line each loop)', async () => {
  const file = recordFile('padded.edf', []);
  const { frames } = await play(file, 3000);
  expect(device?.recording).toMatchObject({ samples: SAMPLES, paddingSamples: 90, durationSeconds: 2.1 });
  const o1 = frames.flatMap((f) => Array.from({ length: f.data.length / 2 }, (_, r) => f.data[2 * r] ?? NaN));
  expect(o1.length).toBeGreaterThan(SAMPLES + 50);
  // Sample 210 is the next pass's first: the file again, not its last value held.
  expect(o1.slice(0, SAMPLES + 50)).toEqual(
    Array.from({ length: SAMPLES + 50 }, (_, n) => stored(n % SAMPLES)),
  );
  // The loop is flagged on the frame that starts the second pass.
  let row = 0;
  for (const frame of frames) {
    const rows = frame.data.length / 2;
    const loops = row > 0 && row % SAMPLES === 0;
    if (row > 0) expect(frame.discontinuity === true, `frame at row ${row}`).toBe(loops);
    row += rows;
  }
});

test("replay announces the file's annotations as marker events at their samples (they were dropped)", async () => {
  const file = recordFile('marked.edf', [
    { onset: 0.5, text: 'eyes closed' },
    { onset: 1.25, text: 'stimulus A', duration: 0.5 },
  ]);
  const { frames, events } = await play(file, 2800);
  const t0 = frames[0]?.timestamp ?? NaN;
  const markers = events.filter((e): e is MarkerEvent => e.type === 'marker');
  const pass = SAMPLES * (1000 / RATE);
  expect(markers).toEqual([
    { type: 'marker', timestamp: t0 + 500, data: { text: 'eyes closed', onset: 0.5, file: 'marked.edf' } },
    {
      type: 'marker',
      timestamp: t0 + 1250,
      data: { text: 'stimulus A', onset: 1.25, duration: 0.5, file: 'marked.edf' },
    },
    // Each pass announces them again, at their samples in that pass.
    {
      type: 'marker',
      timestamp: t0 + pass + 500,
      data: { text: 'eyes closed', onset: 0.5, file: 'marked.edf' },
    },
  ]);
  expect(device?.recording.markers).toBe(2);
});

test('at another rate the markers keep their time to one output sample', async () => {
  const file = recordFile('resampled.edf', [{ onset: 0.5, text: 'eyes closed' }]);
  const clock = new ManualClock();
  device = createReplayHeadset(file, { clock });
  await device.eeg.configure({ samplingFrequency: 250 });
  const frames: Frame[] = [];
  const markers: MarkerEvent[] = [];
  device.eeg.onFrame((frame) => frames.push(frame));
  device.onEvent((event) => {
    if (event.type === 'marker') markers.push(event);
  });
  await device.eeg.start('client');
  for (let t = 0; t < 1000; t += 10) {
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(10);
  }
  expect(markers).toHaveLength(1);
  const t0 = frames[0]?.timestamp ?? NaN;
  expect(Math.abs((markers[0]?.timestamp ?? NaN) - (t0 + 500))).toBeLessThanOrEqual(4);
});

test("a trigger channel's rising codes are replayed as markers at their samples (they were dropped)", async () => {
  // STI 014 steps to 5 at sample 30 and back to 0, to 2 at sample 150 and then to 7 (a rise).
  const code = (k: number): number =>
    k >= 30 && k < 35 ? 5 : k >= 150 && k < 160 ? 2 : k >= 160 && k < 170 ? 7 : 0;
  const file = writeTestEdf(
    dir,
    'triggers.edf',
    [
      { label: 'O1', samplesPerRecord: RATE, value: value },
      { label: 'STI 014', unit: '', samplesPerRecord: RATE, value: code },
    ],
    { records: 2 },
  );
  const { frames, events } = await play(file, 1900);
  const t0 = frames[0]?.timestamp ?? NaN;
  expect(device?.recording.dropped).toEqual([{ label: 'STI 014', reason: expect.any(String) }]);
  expect(events.filter((e) => e.type === 'marker')).toEqual([
    { type: 'marker', timestamp: t0 + 300, data: { text: 'trigger 5', onset: 0.3, file: 'triggers.edf' } },
    { type: 'marker', timestamp: t0 + 1500, data: { text: 'trigger 2', onset: 1.5, file: 'triggers.edf' } },
    { type: 'marker', timestamp: t0 + 1600, data: { text: 'trigger 7', onset: 1.6, file: 'triggers.edf' } },
  ]);
});

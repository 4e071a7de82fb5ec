/**
 * Annotations of a running recorder (docs/recording.md §Annotations): a marker posted to the node
 * lands at the sample of its arrival, `annotate` with an explicit onset at that instant's sample, a
 * stream pause as a gap annotation with its length, in EDF+ (read by the project's reader, EDFlib
 * and MNE) and in a CSV recording's events file. Each is checked against the generator's frames as
 * a tap receives them (their sample counts and time stamps), never against the test's clock.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { Frame } from '../../src/core/frame.js';
import { parseCsv } from '../../src/formats/csv-reader.js';
import { WorkerRuntime } from '../../src/streams/runtime/worker-runtime.js';
import { STREAM_HOST } from '../support/stream-host.js';
import { readEdf } from '../recordings/support.js';
import { definition, pipe } from '../runtime/helpers.js';
import { eventually } from '../support/wait.js';
import { edflibCheck } from '../support/edf-check.js';
import { mneRead } from '../support/mne-check.js';
import { scratchDir } from '../support/scratch.js';

const dataDir = scratchDir('headsetd-recorder-marks');
const recordings = path.join(dataDir, 'recordings');
let runtime: WorkerRuntime | undefined;

afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

const RATE = 250;
const PERIOD_MS = 1000 / RATE;

describe('recorder annotations', () => {
  test('markers, annotate and a pause are annotated at the right samples', async () => {
    runtime = new WorkerRuntime({ workerEntry: STREAM_HOST, dataDir, executablesDirs: [] });
    const stream = definition(
      [
        {
          id: 'gen',
          executable: 'signal-generator',
          config: { sampleRate: RATE, amplitudes: [50], frequencies: [5] },
        },
        { id: 'rec', executable: 'recorder', config: { filename: 'marks', format: 'edf' } },
        { id: 'csv', executable: 'recorder', config: { filename: 'marks', format: 'csv' } },
        { id: 'tap', executable: 'tap', config: {} },
      ],
      [
        pipe('p1', 'gen', 'rec', { policy: 'block' }),
        pipe('p2', 'gen', 'csv', { policy: 'block' }),
        pipe('p3', 'gen', 'tap', { policy: 'block' }),
      ],
    );
    const rt = runtime;
    // The generator's frames, as the recorders get them: each one's first sample in the file is the
    // count of samples before it, which is what the annotations are checked against (the frames'
    // own times, not the test's clock).
    const frames: Frame[] = [];
    const firstSample: number[] = [];
    let samples = 0;
    rt.tap(stream.id, 'tap', (frame) => {
      frames.push(frame);
      firstSample.push(samples);
      samples += frame.data.length / frame.channels.length;
    });
    const lastSampleOf = (k: number) =>
      firstSample[k]! + frames[k]!.data.length / frames[k]!.channels.length - 1;
    const endOf = (frame: Frame) =>
      frame.timestamp + ((frame.data.length / frame.channels.length) * 1000) / RATE;
    /** Until a frame has come whose span ends after `time` (so that a mark at `time` is placed). */
    const framesPast = (time: number, what: string) =>
      eventually(() => frames.length > 0 && endOf(frames.at(-1)!) > time + PERIOD_MS, 10_000, what);
    await rt.start(stream);
    await eventually(() => samples >= 0.8 * RATE, 10_000, '0.8 s recorded');

    // A frame reaches the tap once its last sample was due: a marker sent after it arrives later.
    const beforeMarker = frames.length - 1;
    await rt.signalNode(stream.id, 'rec', 'marker', { text: 'stimulus A' });
    await rt.signalNode(stream.id, 'csv', 'marker', { text: 'stimulus A' });
    // A second marker, sent once both were placed: it lands at or after them, on the recorder's
    // own clock (the test's clock only says how long to wait for the frame holding them).
    await rt.signalNode(stream.id, 'rec', 'marker', { text: 'after stimulus A' });
    const afterMarker = Date.now();
    // `annotate` at the first sample of an earlier frame lands on that sample. Form fields arrive as
    // strings: the onset is accepted as one.
    const snapshotFrame = Math.max(0, beforeMarker - 10);
    await rt.signalNode(stream.id, 'rec', 'annotate', {
      text: 'impedance snapshot',
      onset: String(frames[snapshotFrame]!.timestamp),
    });
    await expect(rt.signalNode(stream.id, 'rec', 'marker', {})).rejects.toMatchObject({
      code: 'validation_failed',
    });
    await expect(rt.signalNode(stream.id, 'rec', 'launch', {})).rejects.toMatchObject({
      code: 'validation_failed',
    });

    // Every mark so far placed before the pause (a mark waits for the frame that holds its time).
    await framesPast(afterMarker, 'the frame holding the marks');
    await rt.pause(stream.id);
    // The pause's length is what the gap annotation measures: it must only be clearly longer than a
    // frame, so it is short.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await rt.resume(stream.id);
    const before = samples;
    await eventually(() => samples >= before + 0.6 * RATE, 10_000, 'samples after resume');
    const beforeLastMarker = frames.length - 1;
    await rt.signalNode(stream.id, 'rec', 'marker', { text: 'after resume' });
    await rt.signalNode(stream.id, 'rec', 'marker', { text: 'after the last marker' });
    const afterLastMarker = Date.now();
    await framesPast(afterLastMarker, 'the frame holding the last marks');
    await rt.stop(stream.id);

    const file = path.join(recordings, 'marks.edf');
    const edf = readEdf(file);
    const find = (pattern: RegExp) => {
      const found = edf.annotations.find((a) => pattern.test(a.text));
      expect(found, `annotation ${String(pattern)} in ${JSON.stringify(edf.annotations)}`).toBeDefined();
      return found!;
    };
    const sampleOf = (annotation: { onset: number }) => Math.round(annotation.onset * RATE);
    // The marker lands between the last sample received before it was sent and a marker sent after it.
    const stimulus = find(/^stimulus A$/);
    expect(sampleOf(stimulus)).toBeGreaterThanOrEqual(lastSampleOf(beforeMarker) - 1);
    expect(sampleOf(stimulus)).toBeLessThanOrEqual(sampleOf(find(/^after stimulus A$/)));
    expect(sampleOf(find(/^impedance snapshot$/))).toBe(firstSample[snapshotFrame]);

    // The gap: where the samples before the pause end, as long as the hole in the frames' timeline.
    const resumed = frames.findIndex((frame) => frame.discontinuity === true);
    expect(resumed).toBeGreaterThan(beforeMarker);
    expect(frames.slice(resumed + 1).some((frame) => frame.discontinuity === true)).toBe(false);
    const hole = frames[resumed]!.timestamp - endOf(frames[resumed - 1]!);
    expect(hole).toBeGreaterThan(100);
    const gap = find(/^Gap of \d+\.\d{3} s/);
    const gapMs = Number(/^Gap of (\d+\.\d{3})/.exec(gap.text)![1]) * 1000;
    expect(Math.abs(gapMs - hole)).toBeLessThanOrEqual(PERIOD_MS);
    expect(sampleOf(gap)).toBe(firstSample[resumed]);

    // After the pause, markers still land at their sample.
    const after = find(/^after resume$/);
    expect(sampleOf(after)).toBeGreaterThanOrEqual(lastSampleOf(beforeLastMarker) - 1);
    expect(sampleOf(after)).toBeLessThanOrEqual(sampleOf(find(/^after the last marker$/)));

    const lib = edflibCheck(file, { samples: false });
    expect(lib.ok).toBe(true);
    const libTexts = lib.annotations.map((a) => a.text);
    expect(libTexts).toEqual(
      expect.arrayContaining([
        'Recording starts',
        'stimulus A',
        'impedance snapshot',
        'after resume',
        gap.text,
      ]),
    );
    const libStimulus = lib.annotations.find((a) => a.text === 'stimulus A')!;
    expect(Math.abs(libStimulus.onset / 1e7 - stimulus.onset)).toBeLessThan(1e-6);
    const [mne] = await mneRead([file], 1);
    expect(mne?.ok, mne?.error).toBe(true);
    const mneStimulus = mne!.annotations.find((a) => a.description === 'stimulus A');
    expect(Math.abs(mneStimulus!.onset - stimulus.onset)).toBeLessThan(1e-6);

    const events = parseCsv(readFileSync(path.join(recordings, 'marks.events.csv'), 'utf8'));
    expect(events[0]).toEqual(['onset', 'duration', 'text']);
    const texts = events.slice(1).map((row) => row[2]);
    expect(texts[0]).toBe('Recording starts');
    expect(texts.some((t) => t?.startsWith('Gap of '))).toBe(true);
    const csvStimulus = events.find((row) => row[2] === 'stimulus A');
    // The CSV recorder's marker was sent after the EDF one's, before the annotation that follows both.
    const csvSample = Math.round(Number(csvStimulus?.[0]) * RATE);
    expect(csvSample).toBeGreaterThanOrEqual(sampleOf(stimulus));
    expect(csvSample).toBeLessThanOrEqual(sampleOf(find(/^after stimulus A$/)));
  });
});

/**
 * Annotations of a running recorder (docs/recording.md §Annotations): a marker posted to the node
 * lands at the sample of its arrival (±1 sample period), `annotate` with an explicit onset at that
 * instant's sample, a stream pause as a gap annotation with its length, in EDF+ (read by the
 * project's reader, EDFlib and MNE) and in a CSV recording's events file.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { parseCsv } from '../../src/formats/csv-reader.js';
import { WorkerRuntime } from '../../src/runtime/worker-runtime.js';
import { STREAM_HOST_ENTRY } from '../../src/executables/stream-host-entry.js';
import { readEdf, tempDataDir } from '../recordings/support.js';
import { definition, pipe } from '../runtime/helpers.js';
import { edflibCheck } from '../support/edf-check.js';
import { mneRead } from '../support/mne-check.js';
import { eventually } from '../support/wait.js';

const dataDir = tempDataDir('headsetd-recorder-marks');
const recordings = path.join(dataDir, 'recordings');
let runtime: WorkerRuntime | undefined;

afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

const RATE = 250;
const PERIOD_MS = 1000 / RATE;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('recorder annotations', () => {
  test('markers, annotate and a pause are annotated at the right samples', async () => {
    runtime = new WorkerRuntime({ workerEntry: STREAM_HOST_ENTRY, dataDir, executablesDirs: [] });
    const stream = definition(
      [
        {
          id: 'gen',
          executable: 'signal-generator',
          config: { sampleRate: RATE, amplitudes: [50], frequencies: [5] },
        },
        { id: 'rec', executable: 'recorder', config: { filename: 'marks', format: 'edf' } },
        { id: 'csv', executable: 'recorder', config: { filename: 'marks', format: 'csv' } },
      ],
      [pipe('p1', 'gen', 'rec', { policy: 'block' }), pipe('p2', 'gen', 'csv', { policy: 'block' })],
    );
    const rt = runtime;
    await rt.start(stream);
    const recorded = () => rt.status(stream.id)?.nodes.rec?.metrics.samplesProcessed ?? 0;
    await eventually(() => recorded() >= 0.8 * RATE, 10_000, '0.8 s recorded');

    const t0 = Date.now();
    await rt.signalNode(stream.id, 'rec', 'marker', { text: 'stimulus A' });
    await rt.signalNode(stream.id, 'csv', 'marker', { text: 'stimulus A' });
    const t1 = Date.now();
    const snapshotAt = t1 - 300;
    // Form fields arrive as strings: the onset is accepted as one.
    await rt.signalNode(stream.id, 'rec', 'annotate', {
      text: 'impedance snapshot',
      onset: String(snapshotAt),
    });
    await expect(rt.signalNode(stream.id, 'rec', 'marker', {})).rejects.toMatchObject({
      code: 'validation_failed',
    });
    await expect(rt.signalNode(stream.id, 'rec', 'launch', {})).rejects.toMatchObject({
      code: 'validation_failed',
    });

    await sleep(300);
    const pausedAt = Date.now();
    await rt.pause(stream.id);
    const pauseDone = Date.now();
    await sleep(1000);
    const resumeAsked = Date.now();
    await rt.resume(stream.id);
    const resumedAt = Date.now();
    const before = recorded();
    await eventually(() => recorded() >= before + 0.6 * RATE, 10_000, 'samples after resume');
    const t3 = Date.now();
    await rt.signalNode(stream.id, 'rec', 'marker', { text: 'after resume' });
    const t4 = Date.now();
    await sleep(200);
    await rt.stop(stream.id);

    const file = path.join(recordings, 'marks.edf');
    const edf = readEdf(file);
    const find = (pattern: RegExp) => {
      const found = edf.annotations.find((a) => pattern.test(a.text));
      expect(found, `annotation ${String(pattern)} in ${JSON.stringify(edf.annotations)}`).toBeDefined();
      return found!;
    };
    // Before the pause, file time and wall time agree: onset ↔ start + onset.
    const stimulus = find(/^stimulus A$/);
    const stimulusWall = edf.start + stimulus.onset * 1000;
    expect(stimulusWall).toBeGreaterThanOrEqual(t0 - PERIOD_MS);
    expect(stimulusWall).toBeLessThanOrEqual(t1 + PERIOD_MS);
    const snapshot = find(/^impedance snapshot$/);
    expect(Math.abs(edf.start + snapshot.onset * 1000 - snapshotAt)).toBeLessThanOrEqual(PERIOD_MS);

    const gap = find(/^Gap of \d+\.\d{3} s/);
    const gapMs = Number(/^Gap of (\d+\.\d{3})/.exec(gap.text)![1]) * 1000;
    // The file's gap spans at least the time the stream was paused for sure, at most the whole span.
    expect(gapMs).toBeGreaterThanOrEqual(resumeAsked - pauseDone - PERIOD_MS);
    expect(gapMs).toBeLessThan(resumedAt - pausedAt + 200);
    // The gap sits where the samples before the pause end.
    expect(edf.start + gap.onset * 1000).toBeGreaterThan(pausedAt - 200);
    expect(edf.start + gap.onset * 1000).toBeLessThanOrEqual(pausedAt + PERIOD_MS);

    // After the pause, wall time = start + onset + the gap.
    const after = find(/^after resume$/);
    const afterWall = edf.start + after.onset * 1000 + gapMs;
    expect(afterWall).toBeGreaterThanOrEqual(t3 - PERIOD_MS - 1);
    expect(afterWall).toBeLessThanOrEqual(t4 + PERIOD_MS + 1);

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
    const [mne] = mneRead([file], 1);
    expect(mne?.ok, mne?.error).toBe(true);
    const mneStimulus = mne!.annotations.find((a) => a.description === 'stimulus A');
    expect(Math.abs(mneStimulus!.onset - stimulus.onset)).toBeLessThan(1e-6);

    const events = parseCsv(readFileSync(path.join(recordings, 'marks.events.csv'), 'utf8'));
    expect(events[0]).toEqual(['onset', 'duration', 'text']);
    const texts = events.slice(1).map((row) => row[2]);
    expect(texts[0]).toBe('Recording starts');
    expect(texts.some((t) => t?.startsWith('Gap of '))).toBe(true);
    const csvStimulus = events.find((row) => row[2] === 'stimulus A');
    expect(Math.abs(Number(csvStimulus?.[0]) - stimulus.onset)).toBeLessThanOrEqual(2 / RATE);
  });
});

/**
 * The recorder node driven directly (no worker): physical range from `range` or the default with
 * clipping counted, new segments on a reconfiguration or a growing range, lost frames annotated,
 * refusal of a foreign existing file, continuation after a restart, bad configs.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { DEFAULT_PHYSICAL_RANGE_UV, physicalMaxFor, tidyUp } from './recorder-range.js';
import { FatalNodeError } from '../runtime/node-errors.js';
import { edflibCheck } from '../../../test/support/edf-check.js';
import {
  FRAME_T0 as T0,
  feed,
  frame,
  readEdf,
  readJson,
  recorderHarness,
} from '../../../test/recordings/support.js';
import { scratchDir } from '../../../test/support/scratch.js';

const dataDir = scratchDir('headsetd-recorder-node');
const dir = path.join(dataDir, 'recordings');

const recorder = (config: Record<string, unknown>, ids?: { streamId: string; nodeId: string }) =>
  recorderHarness(dataDir, config, ids);

describe('physical range rule', () => {
  test('rounds up to 4 significant digits, default without range, 1 for a zero range', () => {
    expect(tidyUp(187_500)).toBe(187_500);
    expect(tidyUp(3.14159)).toBe(3.142);
    expect(tidyUp(130.00001)).toBe(130.1);
    expect(tidyUp(0.000123456)).toBe(0.0001235);
    expect(physicalMaxFor(undefined)).toBe(DEFAULT_PHYSICAL_RANGE_UV);
    expect(physicalMaxFor(0)).toBe(1);
    expect(physicalMaxFor(4_500_000 / 24)).toBe(187_500);
  });

  test('without range: ±187 500 µV, clipped samples counted in info and logged', async () => {
    const h = recorder({ filename: 'norange', format: 'edf' });
    await h.node.start();
    feed(h.node, 250, 1.2, {}, (k) => (k % 50 === 0 ? 250_000 : 10));
    await h.node.stop();
    const edf = readEdf(path.join(dir, 'norange.edf'));
    expect(edf.physicalMax).toEqual([DEFAULT_PHYSICAL_RANGE_UV, DEFAULT_PHYSICAL_RANGE_UV]);
    // 300 samples, one in 50 beyond the range, on 2 channels.
    expect(h.info.clippedSamples).toBe(12);
    expect(h.logs.some((l) => l.includes('clipped'))).toBe(true);
  });

  test('a growing range starts a new segment; a shrinking one does not', async () => {
    const h = recorder({ filename: 'gain', format: 'bdf' });
    await h.node.start();
    let seq = feed(h.node, 250, 1, { range: 100 });
    seq = feed(h.node, 250, 1, { range: 50 }, undefined, seq);
    expect(h.info.recording).toBe('gain.bdf');
    feed(h.node, 250, 1, { range: 1000, discontinuity: true }, (k) => Math.sin(k) * 900, seq);
    expect(h.info.recording).toBe('gain-2.bdf');
    await h.node.stop();
    expect(readEdf(path.join(dir, 'gain.bdf')).physicalMax).toEqual([100, 100]);
    const second = readEdf(path.join(dir, 'gain-2.bdf'));
    expect(second.physicalMax).toEqual([1000, 1000]);
    expect(second.annotations[0]?.text).toBe(
      'Recording starts (continues "gain.bdf": range grew from ±100 to ±1000 uV)',
    );
    expect(h.info.clippedSamples).toBe(0);
  });
});

describe('segments and annotations', () => {
  test('a rate change closes the file and continues in <name>-2; both valid', async () => {
    const h = recorder({ filename: 'rates', format: 'edf' });
    await h.node.start();
    const seq = feed(h.node, 250, 1.5, { range: 60 });
    feed(h.node, 500, 1, { range: 60, discontinuity: true }, undefined, seq);
    expect(h.info.recording).toBe('rates-2.edf');
    await h.node.stop();
    const first = readEdf(path.join(dir, 'rates.edf'));
    expect(first.annotations.slice(-2)).toEqual([
      {
        onset: 1.5,
        duration: undefined,
        text: 'Continued in "rates-2.edf": sampling changed from 250 Hz to 500 Hz',
      },
      { onset: 1.5, duration: undefined, text: 'Recording ends' },
    ]);
    const second = readEdf(path.join(dir, 'rates-2.edf'));
    expect(second.rate).toBe(500);
    expect(second.annotations[0]?.text).toMatch(
      /^Recording starts \(continues "rates.edf": sampling changed/,
    );
    expect(readJson(path.join(dir, '.rates.edf.json'))).toMatchObject({
      complete: true,
      durationSeconds: 1.5,
      sampleRate: 250,
    });
    expect(readJson(path.join(dir, '.rates-2.edf.json'))).toMatchObject({
      complete: true,
      durationSeconds: 1,
      sampleRate: 500,
    });
    for (const name of ['rates.edf', 'rates-2.edf'])
      expect(edflibCheck(path.join(dir, name), { samples: false }).ok).toBe(true);
  });

  test('lost frames (seq gap) and a flagged gap are annotated at the sample where they happen', async () => {
    const h = recorder({ filename: 'lost', format: 'edf' });
    await h.node.start();
    const rate = 250;
    const first = frame(0, 0, rate, ['A', 'B'], 25, () => 1, { range: 10 });
    h.node.onFrame?.('in', first);
    // Frames 1..3 were dropped upstream: frame 4 starts 100 ms later than expected, marked as the
    // first after a loss, as a pipe delivers it (runtime/pipe.ts).
    h.node.onFrame?.(
      'in',
      frame(4, 100, rate, ['A', 'B'], 25, () => 1, { range: 10, discontinuity: true }),
    );
    // A pause of 2 s: the next frame says discontinuity.
    h.node.onFrame?.(
      'in',
      frame(5, 125 + 500, rate, ['A', 'B'], 250, () => 1, { range: 10, discontinuity: true }),
    );
    // A marker before any sample of its time arrived waits for the frame holding it.
    await h.node.signal?.('annotate', { text: 'late', onset: T0 + ((625 + 250 + 10) * 1000) / rate });
    h.node.onFrame?.(
      'in',
      frame(6, 625 + 250, rate, ['A', 'B'], 25, () => 1, { range: 10 }),
    );
    await h.node.stop();
    const annotations = readEdf(path.join(dir, 'lost.edf')).annotations;
    expect(annotations.find((a) => a.text.startsWith('3 frame(s) lost'))).toMatchObject({
      onset: 0.1,
      text: '3 frame(s) lost upstream (0.300 s)',
    });
    // The loss is said once, by its count: not also as a pause.
    expect(annotations.filter((a) => a.onset === 0.1).map((a) => a.text)).toEqual([
      '3 frame(s) lost upstream (0.300 s)',
    ]);
    expect(annotations.find((a) => a.text.startsWith('Gap of'))).toMatchObject({
      onset: 0.2,
      text: 'Gap of 2.000 s (paused or interrupted)',
    });
    // Frame 6 starts at file sample 25 + 25 + 250 = 300.
    expect(annotations.find((a) => a.text === 'late')?.onset).toBeCloseTo((300 + 10) / rate, 6);
  });

  test('samples lost upstream (a Cyton’s dropped packets) are annotated with their count, not as a pause', async () => {
    const h = recorder({ filename: 'dropped', format: 'edf' });
    await h.node.start();
    const rate = 250;
    h.node.onFrame?.(
      'in',
      frame(0, 0, rate, ['A', 'B'], 25, () => 1, { range: 10 }),
    );
    // 7 rows never arrived: the next frame starts 28 ms late, says discontinuity and the count.
    h.node.onFrame?.(
      'in',
      frame(1, 25 + 7, rate, ['A', 'B'], 25, () => 1, { range: 10, discontinuity: true, lostSamples: 7 }),
    );
    await h.node.stop();
    const texts = readEdf(path.join(dir, 'dropped.edf')).annotations.map((a) => a.text);
    expect(texts).toContain('Gap of 0.028 s: 7 samples lost upstream');
    expect(texts.some((t) => t.includes('paused'))).toBe(false);
  });

  test("a frame's annotation (a live source's rate reported) is written where its samples begin", async () => {
    const h = recorder({ filename: 'rated', format: 'edf' });
    await h.node.start();
    const rate = 250;
    const note = 'The LSL stream sends faster than the 250 Hz it declares.';
    h.node.onFrame?.(
      'in',
      frame(0, 0, rate, ['A'], 25, () => 1, { range: 10 }),
    );
    h.node.onFrame?.(
      'in',
      frame(1, 25, rate, ['A'], 25, () => 1, { range: 10, annotation: note }),
    );
    await h.node.stop();
    const annotations = readEdf(path.join(dir, 'rated.edf')).annotations;
    expect(annotations.find((a) => a.text === note)?.onset).toBeCloseTo(25 / rate, 6);
  });

  test('a marker before the first frame lands at its first sample; bad payloads are refused', async () => {
    const h = recorder({ filename: 'early.edf' });
    await h.node.start();
    await h.node.signal?.('marker', { text: ['before'] });
    expect(() => h.node.signal?.('marker', { text: '' })).toThrow(/non-empty 'text'/);
    expect(() => h.node.signal?.('annotate', { text: 'x', onset: 'soon' })).toThrow(/must be numbers/);
    feed(h.node, 250, 1, { range: 60 });
    await h.node.stop();
    expect(readEdf(path.join(dir, 'early.edf')).annotations.find((a) => a.text === 'before')?.onset).toBe(0);
  });
});

describe('names', () => {
  test('an existing file of someone else is refused at start; this node after a restart continues in a new segment', async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'taken.csv'), 'a\n1\n');
    await expect(recorder({ filename: 'taken', format: 'csv' }).node.start()).rejects.toThrow(
      /"taken.csv" already exists/,
    );

    const first = recorder({ filename: 'mine', format: 'csv' });
    await first.node.start();
    feed(first.node, 100, 0.5, {});
    // Killed without stop: the restarted instance must not touch mine.csv.
    const again = recorder({ filename: 'mine', format: 'csv' });
    await again.node.start();
    feed(again.node, 100, 0.5, {});
    await again.node.stop();
    expect(again.info.recording).toBe('mine-2.csv');
    expect(existsSync(path.join(dir, 'mine-2.csv'))).toBe(true);
    await first.node.stop();
    // Another stream's node with the same file name is refused.
    await expect(
      recorder({ filename: 'mine', format: 'csv' }, { streamId: 'stream-b', nodeId: 'rec' }).node.start(),
    ).rejects.toThrow(/already exists/);
  });

  test('a file name naming another format is refused; an unsupported rate stops the node for good', async () => {
    expect(() => recorder({ filename: 'x.csv', format: 'edf' })).toThrow(
      /names a CSV file but format is edf/,
    );
    const h = recorder({ filename: 'third', format: 'edf' });
    await h.node.start();
    expect(() =>
      h.node.onFrame?.(
        'in',
        frame(0, 0, 0.5, ['A'], 1, () => 0),
      ),
    ).toThrow(FatalNodeError);
    await h.node.stop();
  });
});

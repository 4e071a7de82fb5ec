/**
 * The physical range of EDF recordings of filtered EEG (it was ±590 400 µV, 18 µV steps) and
 * clipping that is never silent: the rule of ./recorder-range.ts, the filter's `highpass` that
 * tells a recorder the samples carry no DC, the recorder node's limits, segments, counters,
 * warnings and annotations, and the spans that rate-limit the annotations.
 */
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { Frame } from '../../core/frame.js';
import { edflibCheck } from '../../../test/support/edf-check.js';
import { recordingContext } from '../../../test/sdk/fake-node-context.js';
import { feed, readEdf, recorderHarness } from '../../../test/recordings/support.js';
import { createFilter } from './filter.js';
import { clipText, noValueText, SampleSpans } from './recorder-clipping.js';
import { reservedPhysicalMin } from '../../formats/edf-writer-header.js';
import { DEFAULT_PHYSICAL_RANGE_UV, EDF_DC_FREE_LIMITS, physicalLimitsFor } from './recorder-range.js';
import { scratchDir } from '../../../test/support/scratch.js';

const dataDir = scratchDir('headsetd-recorder-clipping');
const dir = path.join(dataDir, 'recordings');

describe('the physical-range rule', () => {
  test.each([
    ['edf', { range: 590_400, highpass: 1 }, undefined, [-3276.7, 3276.7]],
    ['edf', { highpass: 1 }, undefined, [-3276.7, 3276.7]],
    ['edf', { range: 315, highpass: 1 }, undefined, [-315, 315]],
    ['edf', { range: 187_500 }, undefined, [-187_500, 187_500]],
    ['edf', {}, undefined, [-DEFAULT_PHYSICAL_RANGE_UV, DEFAULT_PHYSICAL_RANGE_UV]],
    ['bdf', { range: 590_400, highpass: 1 }, undefined, [-590_400, 590_400]],
    ['bdf', { range: 590_400, highpass: 1 }, 500, [-500, 500]],
    ['edf', { range: 100 }, 2000, [-2000, 2000]],
  ] as const)('%s %j, physicalRange %s → %j', (format, frame, configured, limits) => {
    const chosen = physicalLimitsFor(format, frame, configured);
    expect([chosen.min, chosen.max]).toEqual(limits);
  });

  test('the EDF limits for samples without DC are 0.1 µV per step, digital 0 at 0 µV', () => {
    const { max } = EDF_DC_FREE_LIMITS;
    // The header's minimum, one step below the samples' (the digital minimum is "no value").
    const min = Number(reservedPhysicalMin('edf', EDF_DC_FREE_LIMITS.min, max));
    expect(min).toBe(-3276.8);
    expect((max - min) / 65535).toBeCloseTo(0.1, 12);
    expect(min + (0 + 32768) * 0.1).toBeCloseTo(0, 9);
  });
});

describe("the filter's highpass", () => {
  const input = (highpass?: number): Frame => ({
    seq: 0,
    timestamp: Date.now(),
    sampleRate: 250,
    channels: ['a'],
    data: new Float32Array(25),
    ...(highpass === undefined ? {} : { highpass }),
  });

  test.each([
    [{ highpass: 1, lowpass: 40 }, undefined, 1],
    [{ highpass: 0.5 }, 2, 2],
    [{ highpass: 3 }, 2, 3],
    [{ lowpass: 40 }, undefined, undefined],
    [{ notch: 50 }, 1, 1],
  ] as const)('config %j on input highpass %s → %s', (config, before, after) => {
    const rc = recordingContext(config);
    createFilter(rc.context).onFrame?.('in', input(before));
    expect(rc.emitted[0]?.frame.highpass).toBe(after);
  });
});

describe('clip spans', () => {
  const run = (first: number, last: number, values = last - first + 1) => ({ first, last, values });

  test('runs within 1 s make one span, annotated once 1 s passes without clipping', () => {
    const spans = new SampleSpans(100, clipText('-1..1'));
    expect(spans.add([run(10, 12), run(50, 50)], 60)).toEqual([]);
    expect(spans.add([run(120, 121)], 130)).toEqual([]);
    const closed = spans.add([], 300);
    expect(closed).toEqual([
      { onsetSeconds: 0.1, durationSeconds: 1.12, text: 'Clipped: 6 value(s) outside -1..1 uV' },
    ]);
    expect(spans.open).toBe(false);
    expect(spans.finish()).toEqual([]);
  });

  test('continuous clipping is annotated every 10 s; the end closes the open span', () => {
    const spans = new SampleSpans(10, clipText('-1..1'));
    const notes: ReturnType<SampleSpans['add']> = [];
    for (let s = 0; s < 250; s += 10) notes.push(...spans.add([run(s, s + 9)], s + 10));
    expect(notes.map((n) => [n.onsetSeconds, n.durationSeconds])).toEqual([
      [0, 10],
      [10, 10],
    ]);
    expect(spans.finish().map((n) => [n.onsetSeconds, n.durationSeconds])).toEqual([[20, 5]]);
  });

  test('spans of no value name the channels of every run they merge', () => {
    const spans = new SampleSpans(100, noValueText(['Fp1', 'Cz', 'O2']));
    spans.add([{ first: 5, last: 6, values: 2, channels: [2] }], 10);
    spans.add([{ first: 40, last: 40, values: 2, channels: [0, 2] }], 50);
    expect(spans.finish()).toEqual([
      { onsetSeconds: 0.05, durationSeconds: 0.36, text: 'No value (NaN or infinite): 4 value(s) on Fp1 O2' },
    ]);
  });
});

describe('the recorder node', () => {
  test('EDF of filtered frames: 0.1 µV steps, no clipping, counters at 0', async () => {
    const h = recorderHarness(dataDir, { filename: 'filtered', format: 'edf' });
    await h.node.start();
    feed(h.node, 250, 1.2, { range: 590_400, highpass: 1 });
    await h.node.stop();
    const edf = readEdf(path.join(dir, 'filtered.edf'));
    expect(edf.physicalMax).toEqual([3276.7, 3276.7]);
    expect(edf.halfStep[0]! * 2).toBeCloseTo(0.1, 12);
    expect(h.info).toMatchObject({ physicalMin: -3276.7, physicalMax: 3276.7, clippedSamples: 0 });
    expect(h.metrics).toEqual({ clippedSamples: 0, noValueSamples: 0 });
    expect(h.warnings).toEqual([]);
  });

  test('a filter removed while recording (the samples carry DC again) continues in a wider segment', async () => {
    const h = recorderHarness(dataDir, { filename: 'unfiltered', format: 'edf' });
    await h.node.start();
    const seq = feed(h.node, 250, 1, { range: 590_400, highpass: 1 });
    feed(h.node, 250, 1, { range: 187_500, discontinuity: true }, undefined, seq);
    await h.node.stop();
    expect(h.info.recording).toBe('unfiltered-2.edf');
    expect(readEdf(path.join(dir, 'unfiltered-2.edf')).annotations[0]?.text).toBe(
      'Recording starts (continues "unfiltered.edf": range grew from ±3276.7 to ±187500 uV)',
    );
  });

  test('values beyond physicalRange: counted, annotated in spans, warned of once; EDFlib accepts the file', async () => {
    const h = recorderHarness(dataDir, { filename: 'clipping', format: 'edf', physicalRange: 100 });
    await h.node.start();
    // 4 s at 250 Hz: 150 µV for 0.2 s at 0.4 s and at 0.8 s (one span), then at 3 s (another).
    const loud = (k: number) => (k >= 100 && k < 150) || (k >= 200 && k < 250) || (k >= 750 && k < 760);
    feed(h.node, 250, 4, { range: 50 }, (k) => (loud(k) ? 150 : 10));
    await h.node.stop();
    expect(h.metrics.clippedSamples).toBe(2 * 110);
    expect(h.info.clippedSamples).toBe(2 * 110);
    expect(h.warnings).toHaveLength(1);
    expect(h.warnings[0]).toMatch(
      /^recording "clipping\.edf" clips: values outside ±100 uV \(first at 0\.400 s\)/,
    );
    const file = path.join(dir, 'clipping.edf');
    const clipped = readEdf(file).annotations.filter((a) => a.text.startsWith('Clipped'));
    expect(clipped).toEqual([
      { onset: 0.4, duration: 0.6, text: 'Clipped: 200 value(s) outside ±100 uV' },
      { onset: 3, duration: 0.04, text: 'Clipped: 20 value(s) outside ±100 uV' },
    ]);
    expect(edflibCheck(file, { samples: false }).ok).toBe(true);
  });

  test('a BDF recording that clips is not told to record BDF: the warning offers what it can do', async () => {
    const h = recorderHarness(dataDir, { filename: 'clipping', format: 'bdf', physicalRange: 100 });
    await h.node.start();
    feed(h.node, 250, 1, { range: 50 }, (k) => (k < 10 ? 150 : 10));
    await h.node.stop();
    expect(h.warnings).toHaveLength(1);
    expect(h.warnings[0]).toMatch(/set the recorder's physicalRange wider$/);
  });
});

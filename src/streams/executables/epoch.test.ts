/**
 * The `epoch` built-in against MNE's `mne.Epochs` on the same samples and events: the window
 * (tmin and tmax rounded to samples as MNE rounds them, halves to even), the baseline, which
 * epochs peak-to-peak rejection drops and which run out of the data, epoch by epoch (≤ 1e-6
 * relative, float32 input). Markers come as `annotate` signals before and after their samples.
 */
import { describe, expect, it } from 'vitest';
import type { Frame } from '../../core/frame.js';
import { recordingContext } from '../../../test/sdk/fake-node-context.js';
import { mneEpochs, relativeError } from '../../../test/support/mne-erp.js';
import { createEpoch } from './epoch.js';

const CHANNELS = ['Fz', 'Cz', 'Pz', 'Oz'];
const RATE = 250;
const T0 = 1_700_000_000_000;
const TOTAL = 2500; // 10 s

function samples(): Float32Array {
  let state = 777;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648 - 0.5;
  };
  const data = new Float32Array(TOTAL * CHANNELS.length);
  for (let i = 0; i < TOTAL; i++) {
    for (let c = 0; c < CHANNELS.length; c++) {
      data[i * CHANNELS.length + c] = 20 * next() + 10 * Math.sin((2 * Math.PI * 3 * i) / RATE + c) + 5 * c;
    }
  }
  // An artefact (a 150 µV step on Oz) in the epoch of the marker at sample 1500.
  for (let i = 1520; i < 1540; i++)
    data[i * CHANNELS.length + 3] = (data[i * CHANNELS.length + 3] ?? 0) + 150;
  return data;
}

/** Frames of uneven sizes cut from the samples. */
function framesOf(data: Float32Array): Frame[] {
  const out: Frame[] = [];
  let row = 0;
  const sizes = [3, 10, 1, 17, 25];
  for (let k = 0; row < TOTAL; k++) {
    const rows = Math.min(sizes[k % sizes.length] as number, TOTAL - row);
    out.push({
      seq: k,
      timestamp: T0 + (row * 1000) / RATE,
      sampleRate: RATE,
      channels: CHANNELS,
      data: data.slice(row * CHANNELS.length, (row + rows) * CHANNELS.length),
      range: 500,
    });
    row += rows;
  }
  return out;
}

// Samples of the events: the first too close to the start and the last too close to the end for
// the window (MNE drops both: no data); one with the artefact; the rest plain.
const EVENTS = [20, 300, 555, 800, 1001, 1500, 1777, 2100, 2480];

interface Run {
  emitted: Frame[];
  info: Record<string, unknown>;
  logs: string[];
}

/**
 * Feeds the frames and, for each event, an `annotate` signal at its sample's time: half of them
 * before any frame (markers waiting for their samples), the others 0.3 s after their samples.
 */
function run(config: Record<string, unknown>, events: readonly number[], texts?: readonly string[]): Run {
  const rc = recordingContext(config);
  const node = createEpoch(rc.context);
  const annotate = (k: number) =>
    node.signal?.('annotate', {
      text: texts?.[k] ?? 'stim',
      onset: T0 + ((events[k] as number) * 1000) / RATE,
    });
  const frames = framesOf(samples());
  events.forEach((_, k) => {
    if (k % 2 === 0) annotate(k);
  });
  const late = new Set(events.flatMap((_, k) => (k % 2 === 1 ? [k] : [])));
  for (const frame of frames) {
    node.onFrame?.('in', frame);
    // The odd markers arrive 0.3 s of samples after their own: their sample is already held.
    for (const k of late) {
      if (frame.timestamp >= T0 + ((events[k] as number) * 1000) / RATE + 300) {
        late.delete(k);
        annotate(k);
      }
    }
  }
  return { emitted: rc.emitted.map((e) => e.frame), info: rc.info, logs: rc.logs.map((l) => l.line) };
}

const CASES = [
  { name: 'baseline (None, 0), rejection', tmin: -0.2, tmax: 0.5, baseline: [null, 0] as const, reject: 100 },
  { name: 'no baseline, no rejection', tmin: -0.1, tmax: 0.3, baseline: null, reject: undefined },
  // −0.198 × 250 = −49.5 and 0.498 × 250 = 124.5: MNE rounds them to −50 and 124 (halves to even).
  {
    name: 'tmin and tmax on half samples',
    tmin: -0.198,
    tmax: 0.498,
    baseline: [-0.1, 0.05] as const,
    reject: 80,
  },
  {
    name: 'a window after the marker, baseline to its end',
    tmin: 0.1,
    tmax: 0.6,
    baseline: [0.2, null] as const,
    reject: undefined,
  },
];

describe('epoch equals mne.Epochs on the same samples and events', () => {
  const data = Array.from(samples());
  for (const c of CASES) {
    it(c.name, async () => {
      const config = {
        tmin: c.tmin,
        tmax: c.tmax,
        baseline: c.baseline,
        ...(c.reject === undefined ? {} : { reject: c.reject }),
      };
      const ours = run(config, EVENTS);
      const mne = await mneEpochs({
        channels: CHANNELS,
        rate: RATE,
        data,
        events: EVENTS,
        tmin: c.tmin,
        tmax: c.tmax,
        baseline: c.baseline,
        ...(c.reject === undefined ? {} : { reject: c.reject }),
      });
      const kept = ours.emitted.map((f) =>
        EVENTS.indexOf(Math.round((((f.marker?.timestamp ?? 0) - T0) * RATE) / 1000)),
      );
      expect(kept).toEqual(mne.kept);
      const first = Math.round((mne.times[0] as number) * RATE);
      for (const [k, frame] of ours.emitted.entries()) {
        expect(frame.channels).toEqual(CHANNELS);
        expect(frame.discontinuity).toBe(true);
        expect(frame.marker?.text).toBe('stim');
        expect(frame.timestamp).toBeCloseTo(
          T0 + (((EVENTS[kept[k] as number] as number) + first) * 1000) / RATE,
          6,
        );
        expect(frame.data.length).toBe(mne.times.length * CHANNELS.length);
        expect(relativeError(frame.data, mne.data[k] as number[])).toBeLessThanOrEqual(1e-6);
      }
      const dropped = EVENTS.length - mne.kept.length;
      const counts = ours.info.epochs as { emitted: number; rejected: number; incomplete: number };
      expect(counts.emitted).toBe(mne.kept.length);
      // The last event's window never completes: it is neither emitted nor counted yet.
      expect(counts.rejected + counts.incomplete + 1).toBe(dropped);
    });
  }
});

describe('epoch: markers', () => {
  it('cuts only around the markers it is given, by exact text', () => {
    const texts = EVENTS.map((_, k) => (k % 3 === 0 ? 'target' : 'standard'));
    const ours = run({ tmin: -0.1, tmax: 0.2, markers: ['target'] }, EVENTS, texts);
    expect(ours.emitted.map((f) => f.marker?.text)).toEqual(['target', 'target']);
    expect((ours.info.epochs as { markers: number }).markers).toBe(3);
  });

  it('drops an epoch interrupted by a discontinuity, and logs why', () => {
    const rc = recordingContext({ tmin: -0.1, tmax: 0.2 });
    const node = createEpoch(rc.context);
    const frames = framesOf(samples());
    node.signal?.('annotate', { text: 'stim', onset: T0 + (300 * 1000) / RATE });
    // The first frame starting after sample 310 marks a gap: inside the window (275 to 350).
    const gapAt = frames.findIndex((f) => f.timestamp > T0 + (310 * 1000) / RATE);
    frames.forEach((frame, i) => {
      node.onFrame?.('in', i === gapAt ? { ...frame, discontinuity: true } : frame);
    });
    expect((rc.info.epochs as { incomplete: number }).incomplete).toBe(1);
    expect(rc.emitted).toEqual([]);
    expect(rc.logs.map((l) => l.line).join('\n')).toContain('no epoch at "stim"');
  });

  it('refuses another signal and a marker without text', () => {
    const node = createEpoch(recordingContext({ tmin: 0, tmax: 0.1 }).context);
    expect(() => node.signal?.('reset', {})).toThrow(
      "the epoch node takes the signals marker and annotate, not 'reset'",
    );
    expect(() => node.signal?.('marker', { text: ' ' })).toThrow("signal marker needs a non-empty 'text'");
  });
});

/**
 * The band-power node against scipy: the same samples, fed through the node's real factory in
 * frames of varying sizes, and given to scipy.signal.welch + numpy.trapz over each band in a
 * python process; every value of every output frame must agree to 1e-6 relative, and every frame's
 * time stamp must be the time of its window's last sample.
 */
import { describe, expect, it } from 'vitest';
import type { Frame } from '../../core/frame.js';
import { recordingContext } from '../../../test/sdk/fake-node-context.js';
import { pseudoEeg, runScipy, varyingSizes } from '../../../test/support/scipy.js';
import { DEFAULT_BANDS } from './band-power-design.js';
import { createBandPower } from './band-power.js';
import { builtinByName } from './builtins.js';

/** For each run of samples (a stretch between gaps), the reference value of every window. */
const REFERENCE = String.raw`
import json, sys
import numpy as np
from scipy.signal import welch
arg = json.loads(sys.argv[2])
fs, ch = arg["rate"], arg["channels"]
x = np.fromfile(sys.argv[1], dtype=np.float32).astype(np.float64).reshape(-1, ch)
whole = lambda s: int(np.floor(s * fs + 0.5))
N, H, nperseg = whole(arg["window"]), whole(arg["step"]), whole(arg["segment"])
noverlap = int(np.floor(arg["overlap"] * nperseg))
def integrate(f, p, lo, hi):
    m = (f >= lo) & (f <= hi)
    return np.trapz(p[..., m], f[m], axis=-1)
out = []
for start, frames in arg["runs"]:
    run = x[start:start + frames]
    rows = []
    j = 0
    while j * H + N <= frames:
        seg = run[j * H:j * H + N].T
        f, p = welch(seg, fs=fs, window=arg["windowFunction"], nperseg=nperseg, noverlap=noverlap,
                     detrend=False if arg["detrend"] == "none" else "constant", axis=-1)
        v = np.stack([integrate(f, p, lo, hi) for lo, hi in arg["bands"]], axis=-1)
        if arg["total"] is not None:
            v = v / integrate(f, p, *arg["total"])[:, None]
        if arg["db"]:
            v = 10 * np.log10(v)
        rows.append(v.reshape(-1).tolist())
        j += 1
    out.append(rows)
print(json.dumps(out))
`;

interface Case {
  rate: number;
  channels: string[];
  config: Record<string, unknown>;
  /** Reference parameters (the node's defaults written out: the test states them independently). */
  reference: {
    window: number;
    step: number;
    segment: number;
    overlap: number;
    windowFunction: string;
    detrend: string;
    bands: [number, number][];
    total: [number, number] | null;
    db: boolean;
  };
}

const T0 = 1_700_000_000_000;

/** Feeds `runs` (sample counts, a gap before every run but the first) in frames of varying sizes. */
function feed(c: Case, runs: number[], x: Float32Array, largest: number) {
  const recorded = recordingContext(c.config);
  const node = createBandPower(recorded.context);
  const width = c.channels.length;
  let offset = 0;
  let seq = 0;
  const starts: number[] = [];
  runs.forEach((frames, r) => {
    // Each run starts 10 s after the previous one ended: a gap.
    const runStart = T0 + ((offset + r * 10 * c.rate) * 1000) / c.rate;
    starts.push(runStart);
    let done = 0;
    for (const size of varyingSizes(frames, largest, r + 3)) {
      node.onFrame?.('in', {
        seq: seq++,
        timestamp: runStart + (done * 1000) / c.rate,
        sampleRate: c.rate,
        channels: c.channels,
        data: x.subarray((offset + done) * width, (offset + done + size) * width),
        ...(r > 0 && done === 0 ? { discontinuity: true } : {}),
      });
      done += size;
    }
    offset += frames;
  });
  return { frames: recorded.emitted.map((e) => e.frame), starts };
}

function expectClose(ours: Float32Array, reference: number[], what: string): void {
  expect(ours.length, what).toBe(reference.length);
  reference.forEach((want, i) => {
    const got = ours[i] as number;
    expect(Math.abs(got - want), `${what} value ${i}: ${got} vs scipy ${want}`).toBeLessThanOrEqual(
      1e-6 * Math.abs(want),
    );
  });
}

async function check(c: Case, runs: number[], largest = 37): Promise<Frame[]> {
  const total = runs.reduce((a, b) => a + b, 0);
  const x = pseudoEeg(total, c.channels.length, c.rate);
  const { frames, starts } = feed(c, runs, x, largest);
  const runStarts = runs.map((_, r) => runs.slice(0, r).reduce((a, b) => a + b, 0));
  const reference = (await runScipy(REFERENCE, x, {
    ...c.reference,
    rate: c.rate,
    channels: c.channels.length,
    runs: runs.map((frames, r) => [runStarts[r], frames]),
  })) as number[][][];
  const n = Math.round(c.reference.window * c.rate);
  const h = Math.round(c.reference.step * c.rate);
  const expected = reference.flatMap((rows, r) =>
    rows.map((values, j) => ({
      values,
      run: r,
      j,
      timestamp: (starts[r] as number) + ((j * h + n - 1) * 1000) / c.rate,
    })),
  );
  expect(expected.length).toBeGreaterThan(runs.length);
  expect(frames).toHaveLength(expected.length);
  frames.forEach((frame, k) => {
    const want = expected[k]!;
    const what = `frame ${k} (run ${want.run}, window ${want.j})`;
    expect(frame.seq, what).toBe(k);
    expect(frame.timestamp, what).toBeCloseTo(want.timestamp, 6);
    expect(frame.sampleRate, what).toBe(c.rate / h);
    expect(frame.discontinuity === true, what).toBe(want.run > 0 && want.j === 0);
    expectClose(frame.data, want.values, what);
  });
  return frames;
}

const DEFAULT_REFERENCE = {
  window: 2,
  step: 0.5,
  segment: 1,
  overlap: 0.5,
  windowFunction: 'hann',
  detrend: 'constant',
  bands: [
    [1, 4],
    [4, 8],
    [8, 13],
    [13, 30],
    [30, 45],
  ] as [number, number][],
  total: null,
  db: false,
};

describe('band-power equals scipy.signal.welch + trapezoid per band, frame by frame', () => {
  it('defaults (2 s window, 0.5 s step, 1 s Hann segments, 50 % overlap): absolute µV², channels <channel>.<band>', async () => {
    const channels = ['Fp1', 'Cz', 'O1', 'O2'];
    const frames = await check({ rate: 250, channels, config: {}, reference: DEFAULT_REFERENCE }, [250 * 12]);
    expect(frames[0]?.channels).toEqual(
      channels.flatMap((ch) => DEFAULT_BANDS.map((b) => `${ch}.${b.name}`)),
    );
    expect(frames[0]?.channels[2 * 5 + 2]).toBe('O1.alpha');
    expect(frames[0]?.units).toEqual(frames[0]?.channels.map(() => 'µV²'));
  });

  it('relative power in dB, Hamming, no detrend, odd segment length, 256 Hz, custom bands; a gap restarts the window', async () => {
    const bands = [
      { name: 'slow', low: 0.5, high: 7 },
      { name: 'mu', low: 8, high: 12.5 },
      { name: 'fast', low: 12.5, high: 40 },
    ];
    const frames = await check(
      {
        rate: 256,
        channels: ['C3', 'C4'],
        config: {
          window: 3,
          step: 0.5,
          segment: 0.7,
          overlap: 0.25,
          windowFunction: 'hamming',
          detrend: 'none',
          bands,
          measure: 'relative',
          totalLow: 0.5,
          totalHigh: 60,
          db: true,
        },
        reference: {
          window: 3,
          step: 0.5,
          segment: 0.7,
          overlap: 0.25,
          windowFunction: 'hamming',
          detrend: 'none',
          bands: bands.map((b) => [b.low, b.high]),
          total: [0.5, 60],
          db: true,
        },
      },
      // A window longer than any frame; a run too short for one window yields nothing.
      [256 * 8 + 100, 256 * 2, 256 * 6],
    );
    expect(frames[0]?.units).toEqual(['dB', 'dB', 'dB', 'dB', 'dB', 'dB']);
  });

  it('frames much longer than a step: several values out of one frame, each stamped with its own window end', async () => {
    await check(
      {
        rate: 250,
        channels: ['F3', 'F4'],
        config: { step: 0.1, window: 1 },
        reference: { ...DEFAULT_REFERENCE, step: 0.1, window: 1 },
      },
      [250 * 10],
      700,
    );
  });

  it('Blackman, relative (unit 1) over the bands’ own range', async () => {
    const frames = await check(
      {
        rate: 500,
        channels: ['Pz'],
        config: {
          windowFunction: 'blackman',
          measure: 'relative',
          step: 1,
          window: 4,
          segment: 2,
          overlap: 0.75,
        },
        reference: {
          ...DEFAULT_REFERENCE,
          windowFunction: 'blackman',
          total: [1, 45],
          step: 1,
          window: 4,
          segment: 2,
          overlap: 0.75,
        },
      },
      [500 * 10],
    );
    expect(frames[0]?.units).toEqual(DEFAULT_BANDS.map(() => '1'));
  });
});

describe('band-power restarts on changes', () => {
  it('a change of channels restarts the window and names the new channels; the frame after says discontinuity', () => {
    const recorded = recordingContext({ window: 1, step: 0.5, segment: 0.5 });
    const node = createBandPower(recorded.context);
    const x = pseudoEeg(1000, 2, 250);
    const frame = (channels: string[], start: number, rows: number): Frame => ({
      seq: 0,
      timestamp: T0 + (start * 1000) / 250,
      sampleRate: 250,
      channels,
      data: x.subarray(start * 2, (start + rows) * 2),
    });
    node.onFrame?.('in', frame(['O1', 'O2'], 0, 300));
    expect(recorded.emitted.map((e) => e.frame.timestamp)).toEqual([T0 + 249 * 4]);
    node.onFrame?.('in', frame(['P3', 'P4'], 300, 300));
    const after = recorded.emitted.slice(1).map((e) => e.frame);
    // A whole window (250 samples) after the change, not sooner.
    expect(after.map((f) => f.timestamp)).toEqual([T0 + 549 * 4]);
    expect(after[0]?.discontinuity).toBe(true);
    expect(after[0]?.channels[0]).toBe('P3.delta');
  });
});

describe('band-power at a rate only its frames tell', () => {
  it('goes to error on a first frame its config is impossible at, naming the key', () => {
    const recorded = recordingContext({});
    const node = createBandPower(recorded.context);
    const frame: Frame = {
      seq: 0,
      timestamp: T0,
      sampleRate: 64,
      channels: ['Cz'],
      data: new Float32Array(64),
    };
    expect(() => node.onFrame?.('in', frame)).toThrow(
      /config\/bands\/4\/high: band 'gamma' ends at 45 Hz, above the Nyquist frequency \(32 Hz\)/,
    );
    expect(recorded.emitted).toHaveLength(0);
  });
});

describe('band-power config checks at a known input rate (checkAtRate)', () => {
  const descriptor = builtinByName('band-power')!;
  const at = (config: Record<string, unknown>, rate: number) => descriptor.checkAtRate!(config, rate);

  it('refuses a band above Nyquist, pointing at its high edge', () => {
    const issues = at({}, 64);
    expect(issues).toEqual([
      expect.objectContaining({
        path: '/bands/4/high',
        message: expect.stringContaining('above the Nyquist frequency (32 Hz)'),
      }),
    ]);
  });

  it('refuses a window shorter than a segment, pointing at segment', () => {
    expect(at({ window: 0.5, segment: 1 }, 250)).toEqual([expect.objectContaining({ path: '/segment' })]);
  });

  it('refuses a band narrower than two PSD bins, pointing at the band', () => {
    expect(at({ segment: 0.25, window: 1, bands: [{ name: 'narrow', low: 10, high: 12 }] }, 250)).toEqual([
      expect.objectContaining({ path: '/bands/0', message: expect.stringContaining('needs at least 2') }),
    ]);
  });

  it('takes the defaults at 250 Hz and gives one value per step downstream', () => {
    expect(at({}, 250)).toEqual([]);
    expect(descriptor.outputRateAt?.({}, 250)).toBe(2);
    expect(at({ step: 0.25 }, 250)).toEqual([
      expect.objectContaining({ path: '/step', message: expect.stringContaining('62.5 samples') }),
    ]);
  });
});

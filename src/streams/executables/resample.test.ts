/**
 * The resample node against scipy.signal.resample_poly: a long stream fed through the node's real
 * factory in many frames of varying sizes must equal resample_poly of the same samples, sample for
 * sample (1e-6 relative), once the filter's start-up is accounted for; each frame's time stamp must
 * be the input time of the sample its first row stands for.
 */
import { describe, expect, it } from 'vitest';
import type { Frame } from '../../core/frame.js';
import type { NodeInput } from '../../platform/schemas/stream.js';
import { rateIssues } from '../rates.js';
import { recordingContext } from '../../../test/sdk/fake-node-context.js';
import { pseudoEeg, runScipy, varyingSizes } from '../../../test/support/scipy.js';
import { builtinByName } from './builtins.js';
import { createResample } from './resample.js';

/** resample_poly of each run (a stretch between gaps) on its own, default window and padding. */
const REFERENCE = String.raw`
import json, sys
import numpy as np
from scipy.signal import resample_poly
arg = json.loads(sys.argv[2])
x = np.fromfile(sys.argv[1], dtype=np.float32).astype(np.float64).reshape(-1, arg["channels"])
print(json.dumps([resample_poly(x[s:s + n], arg["up"], arg["down"], axis=0).tolist() for s, n in arg["runs"]]))
`;

const T0 = 1_700_000_000_000;

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** resample_poly's delay in output samples: its filter centre (10·max + pre-padding) over down. */
function scipyDelay(up: number, down: number): number {
  const half = 10 * Math.max(up, down);
  return (half + down - (half % down)) / down;
}

async function check(
  rate: number,
  config: Record<string, unknown>,
  ratio: [number, number],
  runs: number[],
  channels = ['Fp1', 'Cz', 'O2'],
) {
  const g = gcd(ratio[0], ratio[1]);
  const [up, down] = [ratio[0] / g, ratio[1] / g];
  const outRate = (rate * up) / down;
  const width = channels.length;
  const total = runs.reduce((a, b) => a + b, 0);
  const x = pseudoEeg(total, width, rate, 99);
  const recorded = recordingContext(config);
  const node = createResample(recorded.context);
  const starts: number[] = [];
  let offset = 0;
  runs.forEach((frames, r) => {
    const runStart = T0 + ((offset + r * 5 * rate) * 1000) / rate;
    starts.push(runStart);
    let done = 0;
    for (const size of varyingSizes(frames, 53, 11 + r)) {
      node.onFrame?.('in', {
        seq: 0,
        timestamp: runStart + (done * 1000) / rate,
        sampleRate: rate,
        channels,
        data: x.subarray((offset + done) * width, (offset + done + size) * width),
        units: channels.map(() => 'µV'),
        ...(r > 0 && done === 0 ? { discontinuity: true } : {}),
      });
      done += size;
    }
    offset += frames;
  });
  const runStarts = runs.map((_, r) => runs.slice(0, r).reduce((a, b) => a + b, 0));
  const reference = (await runScipy(REFERENCE, x, {
    channels: width,
    up,
    down,
    runs: runs.map((n, r) => [runStarts[r], n]),
  })) as number[][][];
  const frames = recorded.emitted.map((e) => e.frame);
  // Split the output into runs at each discontinuity.
  const byRun: Frame[][] = [];
  for (const frame of frames) {
    if (byRun.length === 0 || frame.discontinuity === true) byRun.push([]);
    byRun[byRun.length - 1]!.push(frame);
  }
  expect(byRun).toHaveLength(runs.length);
  const delay = up === down ? 0 : scipyDelay(up, down);
  let seq = 0;
  byRun.forEach((run, r) => {
    const want = reference[r]!;
    let k = 0;
    for (const frame of run) {
      expect(frame.seq).toBe(seq++);
      expect(frame.sampleRate).toBe(outRate);
      expect(frame.channels).toEqual(channels);
      expect(frame.units).toEqual(channels.map(() => 'µV'));
      // Output sample k stands for the input instant k·down/up samples after the run's first.
      expect(frame.timestamp).toBeCloseTo((starts[r] as number) + (k * 1000) / outRate, 6);
      const rows = frame.data.length / width;
      for (let i = 0; i < rows; i++, k++) {
        for (let c = 0; c < width; c++) {
          const got = frame.data[i * width + c] as number;
          const ref = want[k]![c]!;
          expect(
            Math.abs(got - ref),
            `run ${r} sample ${k} channel ${c}: ${got} vs scipy ${ref}`,
          ).toBeLessThanOrEqual(1e-6 * Math.abs(ref) + 1e-9);
        }
      }
    }
    // Every output whose input has arrived is out: all of scipy's but the last `delay`.
    expect(k).toBe(want.length - delay);
  });
}

describe('resample equals scipy.signal.resample_poly on a stream fed in frames of varying sizes', () => {
  it('250 → 100 Hz (sampleRate; up 2, down 5), 60 s', async () => {
    await check(250, { sampleRate: 100 }, [2, 5], [250 * 60]);
  });

  it('250 → 375 Hz (up 3, down 2), a gap restarts the filter', async () => {
    await check(250, { up: 3, down: 2 }, [3, 2], [250 * 20, 250 * 3, 250 * 12]);
  });

  it('1000 → 250 Hz and 250 → 251 Hz (up 251, down 250)', async () => {
    await check(1000, { sampleRate: 250 }, [1, 4], [1000 * 20]);
    await check(250, { sampleRate: 251 }, [251, 250], [250 * 30], ['C3']);
  });

  it('equal rates pass the samples through unchanged', async () => {
    await check(250, { up: 4, down: 4 }, [1, 1], [250 * 5]);
  });
});

describe('resample range', () => {
  it("multiplies the input's range by the filter's largest branch Σ|h| (scipy's firwin taps)", async () => {
    const bound = (await runScipy(
      String.raw`
import json, sys
import numpy as np
from scipy.signal import firwin
up, down = 2, 5
h = up * firwin(2 * 10 * max(up, down) + 1, 1.0 / max(up, down), window=("kaiser", 5.0))
print(json.dumps(max(float(np.sum(np.abs(h[p::up]))) for p in range(up))))
`,
      new Float32Array(0),
      null,
    )) as number;
    const recorded = recordingContext({ up: 2, down: 5 });
    const node = createResample(recorded.context);
    node.onFrame?.('in', {
      seq: 0,
      timestamp: T0,
      sampleRate: 250,
      channels: ['Cz'],
      data: pseudoEeg(500, 1, 250),
      range: 100,
    });
    const range = recorded.emitted[0]?.frame.range as number;
    expect(bound).toBeGreaterThan(1);
    expect(Math.abs(range - 100 * bound)).toBeLessThan(1e-9 * range);
  });
});

describe('resample rates before the stream runs', () => {
  const descriptor = builtinByName('resample')!;

  it('refuses a target rate whose ratio to the input does not reduce to factors ≤ 4096, pointing at sampleRate', () => {
    expect(descriptor.checkAtRate!({ sampleRate: 100.001 }, 250)).toEqual([
      expect.objectContaining({ path: '/sampleRate', message: expect.stringContaining('at most 4096') }),
    ]);
    expect(descriptor.checkAtRate!({ sampleRate: 251 }, 250)).toEqual([]);
  });

  it('refuses sampleRate with up/down, or up without down', () => {
    expect(descriptor.check!({ sampleRate: 100, up: 2 }, {})).toEqual([
      expect.objectContaining({ path: '/up' }),
    ]);
    expect(descriptor.check!({ up: 2 }, {})).toEqual([expect.objectContaining({ path: '/down' })]);
  });

  it("gives its output rate to the nodes after it: a filter's lowpass above the new Nyquist is refused", () => {
    const node = (id: string, executable: string, config: Record<string, unknown>, index: number) =>
      [
        id,
        { node: { id, executable, config } as NodeInput, index, builtin: builtinByName(executable) },
      ] as const;
    const nodes = new Map([
      node('gen', 'signal-generator', { sampleRate: 250, amplitudes: [1], frequencies: [10] }, 0),
      node('down', 'resample', { up: 2, down: 5 }, 1),
      node('low', 'filter', { lowpass: 60 }, 2),
    ]);
    const issues = rateIssues(nodes, [
      ['gen', 'down'],
      ['down', 'low'],
    ]);
    expect(issues).toEqual([
      expect.objectContaining({
        path: '/nodes/2/config/lowpass',
        message: expect.stringContaining('Nyquist frequency (50 Hz) of its 100 Hz input'),
      }),
    ]);
  });
});

/**
 * The maker's `bandpass_filter` (cutoff, bandwidth, order), driven through its real factory, frame
 * by frame against scipy run here on the very samples fed to it: butter(order, [cutoff −
 * bandwidth/2, cutoff + bandwidth/2], 'bandpass', fs, output='sos') then sosfilt, its state cleared
 * where a frame says `discontinuity`. Also its refusals of designs that cannot be made.
 */
import { runPythonScript } from '../../../test/support/python.js';
import { describe, expect, test } from 'vitest';
import { recordingContext } from '../../../test/sdk/fake-node-context.js';
import type { Frame } from '../../core/frame.js';
import { builtinByName } from './builtins.js';
import { loadBuiltinFactory } from './factories.js';

const RATE = 250;
const CHANNELS = ['O1', 'O2', 'Pz'];
const FRAME_ROWS = 25;
const FRAMES = 24;
/** The frame after which the input jumps (a gap): the filter starts again from rest. */
const GAP_AT = 14;

/** Seeded test signal: a 10 Hz rhythm, a 3 Hz and a 40 Hz one outside the band, and noise. */
function inputFrames(): Frame[] {
  let state = 12345;
  const noise = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31 - 0.5;
  };
  return Array.from({ length: FRAMES }, (_, f) => {
    const data = new Float32Array(FRAME_ROWS * CHANNELS.length);
    for (let i = 0; i < FRAME_ROWS; i++) {
      const t = (f * FRAME_ROWS + i) / RATE;
      CHANNELS.forEach((_, c) => {
        data[i * CHANNELS.length + c] =
          20 * Math.sin(2 * Math.PI * 10 * t + c) +
          30 * Math.sin(2 * Math.PI * 3 * t) +
          15 * Math.sin(2 * Math.PI * 40 * t) +
          5 * noise() +
          (f >= GAP_AT ? 100 : 0);
      });
    }
    return {
      seq: f,
      timestamp: 1_700_000_000_000 + (f * FRAME_ROWS * 1000) / RATE,
      sampleRate: RATE,
      channels: CHANNELS,
      data,
      ...(f === 0 || f === GAP_AT ? { discontinuity: true } : {}),
    };
  });
}

/** scipy's output for each frame: sosfilt over each run of frames between discontinuities. */
async function scipyFrames(
  frames: readonly Frame[],
  cutoff: number,
  bandwidth: number,
  order: number,
): Promise<number[][]> {
  const script = `
import json, sys
import numpy as np
from scipy import signal
spec = json.loads(sys.stdin.read())
lo, hi = spec["cutoff"] - spec["bandwidth"] / 2, spec["cutoff"] + spec["bandwidth"] / 2
sos = signal.butter(spec["order"], [lo, hi], "bandpass", fs=spec["rate"], output="sos")
width = spec["width"]
out, run, lengths = [], [], []
def flush():
    if not run:
        return
    x = np.concatenate(run).reshape(-1, width)
    y = signal.sosfilt(sos, x, axis=0)
    start = 0
    for n in lengths:
        out.append(y[start:start + n].reshape(-1).tolist())
        start += n
    run.clear(); lengths.clear()
for frame in spec["frames"]:
    if frame["discontinuity"]:
        flush()
    run.append(np.array(frame["data"], dtype=np.float64))
    lengths.append(len(frame["data"]) // width)
flush()
print(json.dumps(out))`;
  const input = JSON.stringify({
    cutoff,
    bandwidth,
    order,
    rate: RATE,
    width: CHANNELS.length,
    // The float32 samples the node was given, exactly (as float64).
    frames: frames.map((f) => ({ data: Array.from(f.data), discontinuity: f.discontinuity === true })),
  });
  const run = await runPythonScript(script, [], input);
  return JSON.parse(run.stdout) as number[][];
}

describe('bandpass_filter', () => {
  test.each([
    { cutoff: 10, bandwidth: 4, order: 4 },
    { cutoff: 20, bandwidth: 10, order: 2 },
  ])(
    "equals scipy's butter(order, [cutoff ∓ bandwidth/2], 'bandpass') + sosfilt frame by frame: %o",
    async (config) => {
      const factory = await loadBuiltinFactory('bandpass_filter');
      if (factory === undefined) throw new Error('bandpass_filter has no implementation');
      const rc = recordingContext(config);
      const node = factory(rc.context);
      await node.start();
      const frames = inputFrames();
      for (const frame of frames) node.onFrame?.('in', frame);
      await node.stop();
      expect(rc.failures).toEqual([]);
      expect(rc.emitted.map((e) => e.port)).toEqual(frames.map(() => 'out'));
      const reference = await scipyFrames(frames, config.cutoff, config.bandwidth, config.order);
      expect(reference).toHaveLength(FRAMES);
      const peak = Math.max(...reference.flat().map(Math.abs));
      rc.emitted.forEach(({ frame }, f) => {
        const expected = reference[f] as number[];
        expect(frame.seq).toBe(f);
        expect(frame.channels).toEqual(CHANNELS);
        expect(frame.sampleRate).toBe(RATE);
        expect(frame.data).toHaveLength(expected.length);
        // Float32 output: within 1e-6 of the signal's peak (a float32 carries ~6e-8 of its value).
        const worst = Math.max(...expected.map((v, i) => Math.abs((frame.data[i] as number) - v)));
        expect(worst / peak, `frame ${f}`).toBeLessThanOrEqual(1e-6);
      });
      // The band-pass removes DC: its frames say so with the lower edge.
      expect(rc.emitted[0]?.frame.highpass).toBe(config.cutoff - config.bandwidth / 2);
    },
  );

  const descriptor = builtinByName('bandpass_filter');
  test('refuses a lower edge at or below 0 Hz, pointing at bandwidth', () => {
    expect(descriptor?.check?.({ cutoff: 10, bandwidth: 20 }, {})).toEqual([
      { path: '/bandwidth', message: expect.stringMatching(/lower edge at 0 Hz; it must be above 0 Hz/) },
    ]);
    expect(descriptor?.check?.({ cutoff: 10, bandwidth: 19.9 }, {})).toEqual([]);
  });

  test('refuses an upper edge at or above Nyquist when the rate is known, pointing at cutoff', () => {
    expect(descriptor?.checkAtRate?.({ cutoff: 123, bandwidth: 4 }, 250)).toEqual([
      {
        path: '/cutoff',
        message: expect.stringMatching(/upper edge at 125 Hz, at or above the Nyquist frequency \(125 Hz\)/),
      },
    ]);
    expect(descriptor?.checkAtRate?.({ cutoff: 122, bandwidth: 4 }, 250)).toEqual([]);
  });
});

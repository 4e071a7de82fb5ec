/**
 * The filter node's SosFilter against its anchor, scipy's compiled `sosfilt`, on the same design
 * (order-4 band-pass 1–40 Hz + 50 Hz notch at 2 kHz: 5 sections) and the same data (21 channels ×
 * 10⁶ samples). scipy runs in a subprocess with Debian's /usr/bin/python3 (bench/lib/scipy_sosfilt.py);
 * both sides report the median CPU time of one whole-array call, and scipy is given its faster
 * layout of two (interleaved float32 along axis 0, as headsetd's frames are; or planar float64).
 * The result's ratio is scipy's CPU ÷ ours: ≥ 1 means headsetd filters at least as fast.
 * Parity: both filter the first 20 000 frames in float64; the largest difference relative to the
 * output's peak must stay below 1e-9 (it is 0 in practice: the recursions are the same).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { designFilter, SosFilter } from '../../dist/dsp/index.js';
import { cpuNs, median, sink } from '../lib/measure.js';
import { result } from '../lib/result.js';
import { sineInNoise } from '../lib/test-signal.js';

const PYTHON = '/usr/bin/python3';
const RATE = 2000;
const CHANNELS = 21;
const FRAMES = 1_000_000;
const PARITY_FRAMES = 20_000;
const ROUNDS = 5;

const testData = () =>
  sineInNoise({ rows: FRAMES, channels: CHANNELS, rate: RATE, frequency: 10, amplitude: 20, noise: 50 });

function ourCpuSeconds(sos, x) {
  const out = new Float32Array(x.length);
  const times = [];
  for (let r = 0; r < ROUNDS; r++) {
    const filter = new SosFilter(sos, CHANNELS);
    const start = cpuNs();
    filter.process(x, out);
    times.push((cpuNs() - start) / 1e9);
    sink.value += out[out.length - 1];
  }
  return median(times);
}

function parityError(sos, x, scipyOut) {
  const ours = new Float64Array(PARITY_FRAMES * CHANNELS);
  new SosFilter(sos, CHANNELS).process(x.subarray(0, ours.length), ours);
  let peak = 0;
  let worst = 0;
  for (let i = 0; i < ours.length; i++) {
    peak = Math.max(peak, Math.abs(scipyOut[i]));
    worst = Math.max(worst, Math.abs(ours[i] - scipyOut[i]));
  }
  return worst / peak;
}

export async function filterVsScipy() {
  const sos = designFilter({ highpass: 1, lowpass: 40, order: 4, notch: 50 }, RATE);
  const x = testData();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'headsetd-bench-scipy-'));
  try {
    const dataFile = path.join(dir, 'x.f32');
    const parityFile = path.join(dir, 'parity.f64');
    writeFileSync(dataFile, x);
    const scipy = JSON.parse(
      execFileSync(
        PYTHON,
        [
          path.resolve(import.meta.dirname, '../lib/scipy_sosfilt.py'),
          dataFile,
          String(FRAMES),
          String(CHANNELS),
          JSON.stringify(Array.from(sos)),
          String(ROUNDS),
          parityFile,
          String(PARITY_FRAMES),
        ],
        { encoding: 'utf8', maxBuffer: 1 << 20 },
      ),
    );
    const scipyOut = new Float64Array(readFileSync(parityFile).buffer.slice(0));
    const ours = ourCpuSeconds(sos, x);
    const anchor = Math.min(scipy.interleavedCpuS, scipy.planarCpuS);
    const parity = parityError(sos, x, scipyOut);
    const samples = FRAMES * CHANNELS;
    const r = result({
      id: 'filter_vs_scipy_ratio',
      title: `SosFilter vs scipy.signal.sosfilt, ${CHANNELS} ch × 10⁶ samples, order-4 band-pass 1–40 Hz + 50 Hz notch (${sos.length / 6} sections)`,
      ratio: parity < 1e-9 ? anchor / ours : Number.NaN,
      ratioOf:
        'scipy sosfilt CPU (its faster layout) ÷ SosFilter CPU, one whole-array call each (NaN if parity > 1e-9)',
      min: 1.0,
      absolute: {
        headsetdMsamplesPerS: samples / ours / 1e6,
        scipyInterleavedMsamplesPerS: samples / scipy.interleavedCpuS / 1e6,
        scipyPlanarMsamplesPerS: samples / scipy.planarCpuS / 1e6,
        parityMaxRelativeError: parity,
      },
    });
    return r;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

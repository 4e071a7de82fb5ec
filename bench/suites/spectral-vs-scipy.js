/**
 * The band-power and resample nodes, run through their real factories on 21 ch × 250 Hz in frames
 * of 10 samples (40 ms), against their anchor, scipy doing the same work on the same samples in a
 * subprocess (Debian's /usr/bin/python3, bench/lib/scipy_spectral.py, timed there with
 * process_time):
 * - band-power, the defaults (2 s window every 0.5 s, 1 s Hann segments, 50 % overlap, five bands):
 *   scipy.signal.welch on all channels of each window + numpy.trapz per band;
 * - resample 250 → 100 Hz (up 2, down 5): scipy.signal.resample_poly of the whole stream in one call
 *   (offline, its fastest form; the node works frame by frame).
 * Each reports CPU seconds per second of EEG for both sides and the ratio scipy CPU ÷ ours (≥ 1:
 * headsetd at least as fast). Parity is checked on the first windows / samples (≤ 1e-6 relative,
 * else the ratio is NaN). Advisory: new, its spread across runs not yet known; kept out of the
 * quick baseline until it is.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createBandPower } from '../../dist/streams/executables/band-power.js';
import { createResample } from '../../dist/streams/executables/resample.js';
import { cpuNs, median, sink } from '../lib/measure.js';
import { result } from '../lib/result.js';
import { sineInNoise } from '../lib/test-signal.js';

const PYTHON = '/usr/bin/python3';
const RATE = 250;
const CHANNELS = 21;
const SECONDS = 600;
const FRAMES = RATE * SECONDS;
const FRAME_SAMPLES = 10;
const ROUNDS = 3;
const BANDS = [
  [1, 4],
  [4, 8],
  [8, 13],
  [13, 30],
  [30, 45],
];
const PARAMS = {
  window: 2 * RATE,
  step: RATE / 2,
  nperseg: RATE,
  noverlap: RATE / 2,
  bands: BANDS,
  up: 2,
  down: 5,
  parityWindows: 40,
  parityFrames: 20_000,
};
const NAMES = Array.from({ length: CHANNELS }, (_, c) => `ch${c + 1}`);

const testData = () =>
  sineInNoise({ rows: FRAMES, channels: CHANNELS, rate: RATE, frequency: 10, amplitude: 20, noise: 50 });

/** Runs a node over `frames` input frames of x in 10-sample frames; returns the frames it emitted. */
function runNode(factory, config, x, frames) {
  const emitted = [];
  const node = factory({
    streamId: 'bench',
    nodeId: 'node',
    config,
    dataDir: os.tmpdir(),
    emit: (_port, frame) => emitted.push(frame),
    log: () => undefined,
    fail: (error) => {
      throw error;
    },
    setInfo: () => undefined,
    countDropped: () => undefined,
    trackProcessGroup: () => undefined,
    untrackProcessGroup: () => undefined,
  });
  for (let i = 0; i < frames; i += FRAME_SAMPLES) {
    const rows = Math.min(FRAME_SAMPLES, frames - i);
    node.onFrame('in', {
      seq: i / FRAME_SAMPLES,
      timestamp: (i * 1000) / RATE,
      sampleRate: RATE,
      channels: NAMES,
      data: x.subarray(i * CHANNELS, (i + rows) * CHANNELS),
    });
  }
  return emitted;
}

function cpuSeconds(factory, config, x) {
  const times = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = cpuNs();
    const out = runNode(factory, config, x, FRAMES);
    times.push((cpuNs() - start) / 1e9);
    sink.value += out.length;
  }
  return median(times);
}

/** Largest |ours − scipy| / |scipy| over the values compared. */
function worstRelative(ours, reference) {
  if (ours.length < reference.length) return Number.POSITIVE_INFINITY;
  let worst = 0;
  for (let i = 0; i < reference.length; i++) {
    worst = Math.max(worst, Math.abs(ours[i] - reference[i]) / Math.max(Math.abs(reference[i]), 1e-9));
  }
  return worst;
}

export async function spectralVsScipy() {
  const x = testData();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'headsetd-bench-spectral-'));
  try {
    const dataFile = path.join(dir, 'x.f32');
    writeFileSync(dataFile, x);
    const scipy = JSON.parse(
      execFileSync(
        PYTHON,
        [
          path.resolve(import.meta.dirname, '../lib/scipy_spectral.py'),
          dataFile,
          String(FRAMES),
          String(CHANNELS),
          String(RATE),
          JSON.stringify(PARAMS),
          String(ROUNDS),
          dir,
        ],
        { encoding: 'utf8', maxBuffer: 1 << 20 },
      ),
    );
    const bandConfig = {};
    const resampleConfig = { sampleRate: (RATE * PARAMS.up) / PARAMS.down };
    const bandFrames = runNode(
      createBandPower,
      bandConfig,
      x,
      PARAMS.window + (PARAMS.parityWindows - 1) * PARAMS.step,
    );
    const bandParity = worstRelative(
      bandFrames.flatMap((f) => Array.from(f.data)),
      new Float64Array(readFileSync(path.join(dir, 'bands.f64')).buffer.slice(0)),
    );
    // The node holds back resample_poly's last D outputs (they need input beyond the end).
    const resampled = runNode(createResample, resampleConfig, x, PARAMS.parityFrames).flatMap((f) =>
      Array.from(f.data),
    );
    const resampleReference = new Float64Array(readFileSync(path.join(dir, 'resampled.f64')).buffer.slice(0));
    const resampleParity = worstRelative(resampled, resampleReference.subarray(0, resampled.length));
    const bandCpu = cpuSeconds(createBandPower, bandConfig, x);
    const resampleCpu = cpuSeconds(createResample, resampleConfig, x);
    return [
      result({
        id: 'band_power_vs_scipy_ratio',
        title: `band-power node, ${CHANNELS} ch × ${RATE} Hz, ${SECONDS} s in ${FRAME_SAMPLES}-sample frames, defaults (2 s window every 0.5 s, 1 s Hann segments, 5 bands)`,
        ratio: bandParity <= 1e-6 ? scipy.bandPowerCpuS / bandCpu : Number.NaN,
        ratioOf:
          'scipy CPU (welch on all channels per window + trapz per band) ÷ band-power node CPU (NaN if parity > 1e-6)',
        min: 0.4,
        advisory: true,
        absolute: {
          headsetdCpuSecondsPerEegSecond: bandCpu / SECONDS,
          scipyCpuSecondsPerEegSecond: scipy.bandPowerCpuS / SECONDS,
          parityMaxRelativeErrorPpb: bandParity * 1e9,
        },
      }),
      result({
        id: 'resample_vs_scipy_ratio',
        title: `resample node ${RATE} → ${resampleConfig.sampleRate} Hz, ${CHANNELS} ch, ${SECONDS} s in ${FRAME_SAMPLES}-sample frames`,
        ratio: resampleParity <= 1e-6 ? scipy.resampleCpuS / resampleCpu : Number.NaN,
        ratioOf:
          'scipy resample_poly CPU (whole stream, one call) ÷ resample node CPU (NaN if parity > 1e-6)',
        min: 0.4,
        advisory: true,
        absolute: {
          headsetdCpuSecondsPerEegSecond: resampleCpu / SECONDS,
          scipyCpuSecondsPerEegSecond: scipy.resampleCpuS / SECONDS,
          parityMaxRelativeErrorPpb: resampleParity * 1e9,
        },
      }),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

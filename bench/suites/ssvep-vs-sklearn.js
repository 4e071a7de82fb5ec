/**
 * The ssvep node against its anchor, scikit-learn's CCA (and scipy's sosfilt for the filter bank),
 * doing the same work: 20 s of EEG at 21 channels × 250 Hz, every channel analysed, windows of 4 s
 * every 0.5 s, the node's 5 default frequencies with 3 harmonics. The node is fed the samples in 3-row
 * frames (the headset's at 250 Hz) through its factory (dist/streams/executables/ssvep.js); python scores the same windows
 * with CCA(n_components=1) at its default tolerance (test/support/ssvep_reference.py with
 * `sklearnDefaults`). Both report CPU time; the result is CPU per second of EEG, and the ratio
 * scikit-learn's CPU ÷ the node's (≥ 1: the node does the work at least as fast). Parity: the
 * largest difference between the two sides' scores is reported (scikit-learn's default tolerance
 * stops its iterations early, so it is not the 1e-4 of the tests, which tighten it).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSsvep } from '../../dist/streams/executables/ssvep.js';
import { cpuNs } from '../lib/measure.js';
import { result } from '../lib/result.js';
import { sineInNoise } from '../lib/test-signal.js';

const PYTHON = '/usr/bin/python3';
const SCRIPT = path.resolve(import.meta.dirname, '../../test/support/ssvep_reference.py');
const RATE = 250;
const CHANNELS = 21;
const SECONDS = 20;
const FREQUENCIES = [6.66, 7.5, 8.57, 10, 12];

const testData = () =>
  sineInNoise({
    rows: SECONDS * RATE,
    channels: CHANNELS,
    rate: RATE,
    frequency: 12,
    amplitude: 3,
    noise: 40,
  });

/** The node's CPU seconds for the whole input, and its scores per window. */
function runNode(method, x) {
  const names = Array.from({ length: CHANNELS }, (_, c) => `ch${c + 1}`);
  const frames = [];
  const context = {
    streamId: 'bench',
    nodeId: 'ssvep',
    config: { frequencies: FREQUENCIES, channels: names, window: 4, step: 0.5, method },
    dataDir: os.tmpdir(),
    emit: (_port, frame) => frames.push(frame),
    log: () => undefined,
    fail: (error) => {
      throw error;
    },
    setInfo: () => undefined,
    countDropped: () => undefined,
    trackProcessGroup: () => undefined,
    untrackProcessGroup: () => undefined,
  };
  const node = createSsvep(context);
  const step = 3; // rows per frame: the headset's frames at 250 Hz
  const start = cpuNs();
  for (let i = 0; i < x.length / CHANNELS; i += step) {
    node.onFrame('in', {
      seq: i / step,
      timestamp: (i * 1000) / RATE,
      sampleRate: RATE,
      channels: names,
      data: x.subarray(i * CHANNELS, (i + step) * CHANNELS),
    });
  }
  const seconds = (cpuNs() - start) / 1e9;
  return { seconds, scores: frames.map((f) => Array.from(f.data.subarray(0, FREQUENCIES.length))) };
}

export async function ssvepVsSklearn() {
  const x = testData();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'headsetd-bench-ssvep-'));
  const out = [];
  try {
    const data = path.join(dir, 'x.f32');
    writeFileSync(data, x);
    for (const method of ['cca', 'fbcca']) {
      const ours = runNode(method, x);
      const run = spawnSync(PYTHON, [SCRIPT], {
        input: JSON.stringify({
          rate: RATE,
          data,
          width: CHANNELS,
          columns: Array.from({ length: CHANNELS }, (_, c) => c),
          length: 4 * RATE,
          step: RATE / 2,
          frequencies: FREQUENCIES,
          harmonics: 3,
          method,
          subBands: 5,
          sklearnDefaults: true,
        }),
        encoding: 'utf8',
        maxBuffer: 1 << 24,
      });
      if (run.status !== 0) throw new Error(`ssvep_reference.py failed: ${run.stderr}`);
      const anchor = JSON.parse(run.stdout);
      let worst = 0;
      anchor.scores.forEach((row, w) =>
        row.forEach((v, k) => {
          worst = Math.max(worst, Math.abs(v - (ours.scores[w]?.[k] ?? Number.NaN)));
        }),
      );
      out.push(
        result({
          id: `ssvep_${method}_vs_sklearn_ratio`,
          title: `ssvep (${method}) vs scikit-learn CCA${method === 'fbcca' ? ' + scipy sosfilt' : ''}, ${CHANNELS} ch × ${RATE} Hz, 4 s windows every 0.5 s, ${FREQUENCIES.length} frequencies × 3 harmonics`,
          ratio: anchor.seconds / ours.seconds,
          ratioOf: 'scikit-learn CPU ÷ ssvep node CPU, same windows',
          min: 1.0,
          absolute: {
            ssvepCpuMsPerSecondOfEeg: (1000 * ours.seconds) / SECONDS,
            sklearnCpuMsPerSecondOfEeg: (1000 * anchor.seconds) / SECONDS,
            windows: ours.scores.length,
            maxScoreDifference: worst,
          },
        }),
      );
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

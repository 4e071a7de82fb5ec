/**
 * The ssvep node on a real, labelled SSVEP recording (test/fixtures/eeg/README.md: a Muse with an
 * electrode at POz, 32 trials of a grating reversing at 30 or 20 Hz). Each trial's window, 0.5 s to
 * 2.5 s after its marker, is fed to the node as a segment of its own (a frame with discontinuity,
 * so that the node's one window is exactly that one); the node's `frequency.top` is its answer.
 * scikit-learn's CCA scores the very same windows offline (test/support/ssvep_reference.py): the
 * node must be as accurate, and its scores equal to 1e-4.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import type { Frame } from '../../core/frame.js';
import { recordingContext } from '../../../test/sdk/fake-node-context.js';
import { referenceScores } from '../../../test/support/ssvep-reference.js';
import { createSsvep } from './ssvep.js';

const FILE = path.join(
  import.meta.dirname,
  '../../../test/fixtures/eeg/eeg-notebooks-SSVEP-subject1-session1.csv',
);
const RATE = 256;
/** Marker → the grating's reversal rate, Hz (the recording's stimulus script: 1 → 30 Hz, 2 → 20 Hz). */
const STIMULUS: Readonly<Record<number, number>> = { 1: 30, 2: 20 };
const FREQUENCIES = [30, 20];
const OFFSET = Math.round(0.5 * RATE);
const LENGTH = 2 * RATE;

test.each(['cca', 'fbcca'] as const)(
  '%s on a real recording: accuracy at least scikit-learn’s on the same windows',
  async (method) => {
    const lines = readFileSync(FILE, 'utf8').trim().split('\n');
    const header = (lines[0] as string).split(',');
    // The extra electrode at POz is the column 'Right AUX'; the four Muse electrodes keep their names.
    const channels = header.slice(1, 6).map((name) => (name === 'Right AUX' ? 'POz' : name));
    const rows = lines.slice(1).map((line) => line.split(',').map(Number));
    const width = channels.length;
    const samples = new Float32Array(rows.length * width);
    rows.forEach((row, i) => {
      for (let c = 0; c < width; c++) samples[i * width + c] = row[c + 1] as number;
    });
    const trials = rows.flatMap((row, i) =>
      row[6] !== 0 ? [{ start: i + OFFSET, label: STIMULUS[row[6] as number] }] : [],
    );
    expect(trials).toHaveLength(32);

    const recorded = recordingContext({ frequencies: FREQUENCIES, window: 2, step: 2, method });
    const node = createSsvep(recorded.context);
    trials.forEach(({ start }, k) => {
      const frame: Frame = {
        seq: k,
        timestamp: ((rows[start] as number[])[0] as number) * 1000,
        sampleRate: RATE,
        channels,
        data: samples.slice(start * width, (start + LENGTH) * width),
        discontinuity: true,
      };
      node.onFrame?.('in', frame);
    });
    const frames = recorded.emitted.map((e) => e.frame);
    expect(frames).toHaveLength(trials.length);
    const top = frames[0]?.channels.indexOf('frequency.top') as number;
    const nodeCorrect = frames.filter((f, k) => f.data[top] === trials[k]?.label).length;

    const reference = await referenceScores({
      rate: RATE,
      samples,
      width,
      columns: [4], // POz: the node's default, the occipital channels present
      length: LENGTH,
      step: LENGTH,
      starts: trials.map((t) => t.start),
      frequencies: FREQUENCIES,
      harmonics: 3,
      method,
      // Each trial is a segment of its own: the node's sub-band filters start from zero on it.
      filterEachWindow: true,
    });
    const referenceCorrect = reference.scores.filter((scores, k) => {
      const best = scores.indexOf(Math.max(...scores));
      return FREQUENCIES[best] === trials[k]?.label;
    }).length;
    frames.forEach((f, k) => {
      FREQUENCIES.forEach((_, i) => {
        expect(Math.abs((f.data[i] as number) - (reference.scores[k]?.[i] as number))).toBeLessThanOrEqual(
          1e-4,
        );
      });
    });
    console.log(
      `${method} on ${trials.length} real trials (30 vs 20 Hz, POz, 2 s): node ${((100 * nodeCorrect) / trials.length).toFixed(1)} %, scikit-learn ${((100 * referenceCorrect) / trials.length).toFixed(1)} %`,
    );
    expect(nodeCorrect).toBeGreaterThanOrEqual(referenceCorrect);
  },
);

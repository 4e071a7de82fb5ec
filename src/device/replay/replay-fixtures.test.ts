/**
 * The replay device on the real EEG recordings the tests read (test/formats/fixtures.ts): each file's labels map to the
 * expected electrodes, and a whole pass of the file plus the start of the next one comes out of
 * the device with the file's own physical values (the reader's whole-signal read, as float32),
 * at the file's rate, with `discontinuity` on the first frame and on the frame where the loop
 * starts again, and nowhere else. Time is a ManualClock, so a pass takes well under a second.
 */
import { channelName, type Electrode } from '../../core/electrodes.js';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { createReplayHeadset, ManualClock, type ReplayHeadset } from './index.js';
import type { Frame } from '../../core/frame.js';
import { fileSignals } from '../../../test/support/file-signals.js';
import { FIXTURE_DIR as FIXTURES } from '../../../test/formats/fixtures.js';

const ALL_19 = [
  'PZ',
  'O1',
  'O2',
  'P3',
  'P4',
  'T5',
  'T6',
  'C3',
  'C4',
  'T3',
  'T4',
  'CZ',
  'F7',
  'F8',
  'F3',
  'F4',
  'FP1',
  'FP2',
  'FZ',
];

interface Fixture {
  file: string;
  rate: number;
  /** Samples per channel in one pass. */
  samples: number;
  electrodes: string[];
  /** A few labels as written in the file and the electrode each must give. */
  labels: Record<string, string>;
  /** Some labels that must be dropped. */
  dropped: string[];
}

const FIXTURE_FILES: Fixture[] = [
  {
    file: 'test_edf_stim_channel.edf',
    rate: 128,
    samples: 1228,
    electrodes: ALL_19,
    labels: { 'EEG Fp1': 'FP1', 'EEG T3': 'T3', 'EEG Pz': 'PZ' },
    dropped: ['EOG VEOG_I', 'REF_EEG REF_EEG', 'ECG ECG1', 'DIG DTRIG'],
  },
  {
    file: 'test_bdf_stim_channel.bdf',
    rate: 500,
    samples: 5000,
    electrodes: ['C3', 'C4', 'CZ'],
    labels: { C3: 'C3', C4: 'C4', Cz: 'CZ' },
    dropped: ['Status'],
  },
  {
    file: 'biosemi_test.bdf',
    rate: 2048,
    samples: 2048,
    electrodes: ALL_19,
    labels: { Fp1: 'FP1', T7: 'T3', T8: 'T4', P7: 'T5', P8: 'T6', Cz: 'CZ' },
    dropped: ['AF7', 'Fpz', 'Iz', 'EXG1', 'M1', 'Status'],
  },
  {
    file: 'S002R01.edf',
    rate: 160,
    samples: 640,
    electrodes: ALL_19,
    labels: { 'Fp1.': 'FP1', 'T7..': 'T3', 'P8..': 'T6', 'Cz..': 'CZ', 'O2..': 'O2' },
    dropped: ['Fc5.', 'Fpz.', 'Iz..'],
  },
];

let headset: ReplayHeadset | undefined;
afterEach(async () => {
  await headset?.close();
  headset = undefined;
});

describe.each(FIXTURE_FILES)('replay of $file', (fixture) => {
  const file = path.join(FIXTURES, fixture.file);

  test('maps the labels to the expected electrodes, drops the others, plays at the file rate', () => {
    headset = createReplayHeadset(file, { clock: new ManualClock() });
    const recording = headset.recording;
    expect(recording.channels.map((c) => c.electrode)).toEqual(fixture.electrodes);
    for (const [label, electrode] of Object.entries(fixture.labels)) {
      expect(recording.channels.find((c) => c.label === label)?.electrode).toBe(electrode);
    }
    for (const label of fixture.dropped) expect(recording.droppedLabels).toContain(label);
    expect(recording.sampleRate).toBe(fixture.rate);
    expect(recording.samples).toBe(fixture.samples);
    expect(headset.info().kind).toBe('replay');
    expect(headset.info().hardware).toContain(fixture.file);
    // The acquisition's defaults: the file's channels at its own rate.
    expect(headset.eeg.config()).toMatchObject({
      channels: fixture.electrodes,
      samplingFrequency: fixture.rate,
    });
  });

  test("a whole pass and the next loop's start carry the file's samples; the loop is flagged", async () => {
    const clock = new ManualClock();
    headset = createReplayHeadset(file, { clock });
    const frames: Frame[] = [];
    headset.eeg.onFrame((frame) => frames.push(frame));
    await headset.eeg.start('client');
    // One pass plus a quarter of a second of the next one.
    clock.advance((fixture.samples / fixture.rate) * 1000 + 250);
    await headset.eeg.stop('client');

    const expected = fileSignals(file);
    const width = fixture.electrodes.length;
    let row = 0;
    const flagged: number[] = [];
    for (const frame of frames) {
      expect(frame.channels).toEqual(fixture.electrodes.map((e) => channelName(e as Electrode)));
      expect(frame.sampleRate).toBe(fixture.rate);
      const rows = frame.data.length / width;
      if (frame.discontinuity === true) flagged.push(row);
      for (let r = 0; r < rows; r++) {
        const index = (row + r) % fixture.samples;
        for (let c = 0; c < width; c++) {
          const want = expected.get(fixture.electrodes[c]!)![index]!;
          const got = frame.data[r * width + c]!;
          if (got !== Math.fround(want)) {
            throw new Error(`${fixture.electrodes[c]} sample ${row + r}: ${got} != ${want}`);
          }
        }
      }
      row += rows;
    }
    expect(row).toBeGreaterThan(fixture.samples + fixture.rate / 8);
    // The first frame, and the frame holding the first sample of the second pass.
    const rowsPerFrame = frames[0]!.data.length / width;
    expect(flagged).toEqual([0, Math.floor(fixture.samples / rowsPerFrame) * rowsPerFrame]);
  });
});

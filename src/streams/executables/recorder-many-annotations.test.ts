/**
 * A recording with more annotations than a data record holds, as a user makes one: 1,100
 * `annotate` signals in 80 s of frames (bursts of long texts at the middle and at the very end).
 * The file holds the samples recorded, only its last record padded, and every annotation at its
 * onset: MNE reads it so. (The file gained tens of seconds of repeated samples before.)
 */
import path from 'node:path';
import { expect, test } from 'vitest';
import { mneRead } from '../../../test/support/mne-check.js';
import { FRAME_T0, frame, recorderHarness } from '../../../test/recordings/support.js';
import { scratchDir } from '../../../test/support/scratch.js';

const RATE = 250;
const SAMPLES = 80 * RATE + 90;

test('1,100 annotations in 80 s: MNE reads the samples recorded and every annotation at its onset', async () => {
  const dataDir = scratchDir('headsetd-recorder-many-annotations');
  const h = recorderHarness(dataDir, { filename: 'busy.bdf' });
  await h.node.start();
  const marks: { onset: number; text: string }[] = [];
  for (let i = 0; i < 1100; i++)
    marks.push({ onset: (i * 18 + 3) / RATE, text: `Stimulus ${i}: cue ${'LRUD'[i % 4]}` });
  for (let i = 0; i < 25; i++) {
    marks.push({ onset: 40 + i / RATE, text: `Burst ${i} ${'long text '.repeat(38)}`.slice(0, 390) });
    marks.push({
      onset: (SAMPLES - 40 + i) / RATE,
      text: `End burst ${i} ${'words '.repeat(60)}`.slice(0, 350),
    });
  }
  marks.sort((a, b) => a.onset - b.onset);
  const value = (k: number): number => Math.fround(Math.sin(k / 9) * 400);
  const per = RATE / 25;
  let next = 0;
  for (let seq = 0, at = 0; at < SAMPLES; seq++, at += per) {
    const n = Math.min(per, SAMPLES - at);
    // Each annotation is signalled just before the frame holding its onset, as a client sends it.
    while (next < marks.length && (marks[next]?.onset ?? Infinity) * RATE < at + n) {
      const mark = marks[next++]!;
      await h.node.signal?.('annotate', { text: mark.text, onset: FRAME_T0 + mark.onset * 1000 });
    }
    h.node.onFrame?.('in', frame(seq, at, RATE, ['Fp1', 'Cz'], n, value, { range: 500 }));
  }
  await h.node.stop();
  expect(h.failures).toEqual([]);

  const [m] = await mneRead([path.join(dataDir, 'recordings', 'busy.bdf')]);
  expect(m?.error).toBeUndefined();
  expect(m?.nTimes).toBe(Math.ceil(SAMPLES / RATE) * RATE); // only the last record padded
  const step = 1000 / 16777215;
  for (let k = 0; k < SAMPLES; k++)
    expect(Math.abs((m?.data[0]?.[k] ?? 0) - value(k))).toBeLessThanOrEqual(step);
  const read = (m?.annotations ?? [])
    .filter((a) => !a.description.startsWith('Recording'))
    .map((a) => ({ onset: a.onset, text: a.description }))
    .sort((a, b) => a.onset - b.onset || (a.text < b.text ? -1 : 1));
  const wanted = [...marks].sort((a, b) => a.onset - b.onset || (a.text < b.text ? -1 : 1));
  expect(read.map((a) => a.text)).toEqual(wanted.map((a) => a.text));
  read.forEach((a, i) => {
    expect(Math.abs(a.onset - wanted[i]!.onset)).toBeLessThanOrEqual(1 / RATE);
  });
}, 120_000);

/**
 * Child process of the kill -9 test: records a deterministic signal with EdfWriter, ten times
 * faster than real time, printing after each write how many samples it has handed to the writer.
 * usage: node --import tsx crash-writer-child.ts FILE FORMAT
 */
import { EdfWriter } from '../../src/formats/edf-writer.js';
import { crashSample, CRASH_CHANNELS, CRASH_RATE } from './crash-signal.js';

const [path, format] = process.argv.slice(2) as [string, 'edf' | 'bdf'];
const w = EdfWriter.open(path, {
  format,
  sampleRate: CRASH_RATE,
  channels: Array.from({ length: CRASH_CHANNELS }, (_, c) => ({
    label: `C${c}`,
    physicalMin: -1000,
    physicalMax: 1000,
  })),
  startTime: new Date('2026-11-21T10:00:00Z'),
});
const frame = CRASH_RATE / 10; // 100 ms of data every 10 ms
let written = 0;
setInterval(() => {
  const data = new Float32Array(frame * CRASH_CHANNELS);
  for (let s = 0; s < frame; s++) {
    for (let c = 0; c < CRASH_CHANNELS; c++) data[s * CRASH_CHANNELS + c] = crashSample(written + s, c);
  }
  w.write(data, frame);
  written += frame;
  process.stdout.write(`written ${written}\n`);
}, 10);

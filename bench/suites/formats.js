/**
 * Recording-format benchmarks: the EDF+ (16-bit), BDF+ (24-bit) and CSV writers fed 19 channels
 * at 16 kHz in 10 ms frames (160 samples), as the recorder node feeds them, with their real flush
 * cadence (1 s of data, then fdatasync). Files go to a temporary directory, removed at the end.
 *
 * References, measured in the same run: the least work each format needs, written plainly in this
 * file with the same flush cadence.
 * - EDF/BDF: scale, round and clamp each sample into a typed array, one write per second of data.
 * - CSV: `String(value)` per sample, `join(',')` per row, one write per second of data.
 * The ratio shows what the real writer adds (channel-major records, annotation signal, exact
 * scaling, clipping counts; shortest float32 text for CSV). CPU time excludes the wait in fdatasync.
 */
import { Buffer } from 'node:buffer';
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { CsvWriter } from '../../dist/formats/csv-writer.js';
import { EdfWriter } from '../../dist/formats/edf-writer.js';
import { compare, sink } from '../lib/measure.js';
import { result } from '../lib/result.js';

const CHANNELS = 19;
const RATE = 16000;
const FRAME = RATE / 100;
const RANGE_UV = 1000;

function frame() {
  const data = new Float32Array(FRAME * CHANNELS);
  for (let i = 0; i < FRAME; i++) {
    for (let c = 0; c < CHANNELS; c++) {
      data[i * CHANNELS + c] =
        80 * Math.sin((2 * Math.PI * 10 * i) / RATE + c) + ((i * 31 + c * 7) % 17) * 0.37;
    }
  }
  return data;
}

/** The plain reference encoder of fixed-width integer samples (2 or 3 bytes), flushed every second. */
function plainBinary(path, bytesPerSample) {
  const fd = openSync(path, 'w');
  const digitalMax = bytesPerSample === 2 ? 32767 : 8388607;
  const gain = (2 * digitalMax) / (2 * RANGE_UV);
  const buffer = Buffer.alloc(RATE * CHANNELS * bytesPerSample);
  let at = 0;
  return {
    write(data) {
      for (let k = 0; k < data.length; k++) {
        const d = Math.max(-digitalMax, Math.min(digitalMax, Math.round(data[k] * gain)));
        at = bytesPerSample === 2 ? buffer.writeInt16LE(d, at) : buffer.writeIntLE(d, at, 3);
        if (at === buffer.length) {
          writeSync(fd, buffer);
          fdatasyncSync(fd);
          at = 0;
        }
      }
    },
    close: () => closeSync(fd),
  };
}

/** The plain reference CSV: String(value) and join, flushed every second. */
function plainCsv(path) {
  const fd = openSync(path, 'w');
  let lines = [];
  return {
    write(data) {
      for (let i = 0; i < FRAME; i++) {
        const row = new Array(CHANNELS);
        for (let c = 0; c < CHANNELS; c++) row[c] = String(data[i * CHANNELS + c]);
        lines.push(row.join(','));
        if (lines.length === RATE) {
          writeSync(fd, `${lines.join('\n')}\n`);
          fdatasyncSync(fd);
          lines = [];
        }
      }
    },
    close: () => closeSync(fd),
  };
}

function ops(writer, data) {
  return (n) => {
    for (let k = 0; k < n; k++) writer.write(data, FRAME);
    sink.value += n;
  };
}

async function writerBench(dir, format, data) {
  const labels = Array.from({ length: CHANNELS }, (_, c) => `EEG ${c}`);
  let real;
  let plain;
  if (format === 'csv') {
    real = CsvWriter.open(join(dir, 'real.csv'), { channels: labels, sampleRate: RATE, overwrite: true });
    plain = plainCsv(join(dir, 'plain.csv'));
  } else {
    real = EdfWriter.open(join(dir, `real.${format}`), {
      format,
      sampleRate: RATE,
      channels: labels.map((label) => ({ label, physicalMin: -RANGE_UV, physicalMax: RANGE_UV })),
      startTime: new Date(),
      overwrite: true,
    });
    plain = plainBinary(join(dir, `plain.${format}`), format === 'edf' ? 2 : 3);
  }
  // Rounds of at least 0.1 s CPU, so each covers several flushes (one per second of data for EDF).
  const r = await compare(ops(real, data), ops(plain, data), { minRoundMs: 100, rounds: 5, maxMs: 8000 });
  real.close();
  plain.close();
  const cpuMsPerSecond = (r.subjectNs * 100) / 1e6;
  return result({
    id: `formats.${format}`,
    title: `${format.toUpperCase()} writer, ${CHANNELS} ch at ${RATE} Hz, ${FRAME}-sample frames, 1 s flush + fdatasync`,
    ratio: r.ratio,
    ratioOf: `${format.toUpperCase()} writer CPU ÷ plain ${format === 'csv' ? 'String+join CSV' : 'scale+round+clamp'} encoder CPU`,
    // Measured here: EDF ~1.5, BDF ~1.2, CSV ~2; the thresholds flag a real regression, not noise.
    max: format === 'csv' ? 3.5 : 2.5,
    absolute: {
      cpuMsPerSecondOfData: cpuMsPerSecond,
      realTimeFactor: 1000 / cpuMsPerSecond,
      plainCpuMsPerSecondOfData: (r.referenceNs * 100) / 1e6,
    },
  });
}

/** Runs the formats suite; returns its results. */
/**
 * BDF+ as the recorder writes a headset's stream: 21 ch × 2 kHz in 10 ms frames, with the writer's
 * crash-safety cadence (records appended, fdatasync, header count patched, every second of data),
 * measured in wall time, fdatasync waits included: seconds of data written per second. The anchor
 * is the plain 24-bit encoder with one write and fdatasync per second, in the same run.
 */
function bdfWallClock(dir) {
  const rate = 2000;
  const channels = 21;
  const rows = rate / 100;
  const seconds = 30;
  const data = new Float32Array(rows * channels).map((_, i) => 80 * Math.sin(i / 9));
  const labels = Array.from({ length: channels }, (_, c) => ({
    label: `EEG ${c}`,
    physicalMin: -RANGE_UV,
    physicalMax: RANGE_UV,
  }));
  const time = (write, close) => {
    const started = performance.now();
    for (let k = 0; k < seconds * 100; k++) write();
    close();
    return performance.now() - started;
  };
  const writer = EdfWriter.open(join(dir, 'wall.bdf'), {
    format: 'bdf',
    sampleRate: rate,
    channels: labels,
    startTime: new Date(),
    overwrite: true,
  });
  const ours = time(
    () => writer.write(data, rows),
    () => writer.close(),
  );
  const fd = openSync(join(dir, 'plain-wall.bdf'), 'w');
  const gain = 8388607 / RANGE_UV;
  const second = Buffer.alloc(rate * channels * 3);
  let at = 0;
  const plain = time(
    () => {
      for (let k = 0; k < data.length; k++) {
        at = second.writeIntLE(Math.max(-8388607, Math.min(8388607, Math.round(data[k] * gain))), at, 3);
      }
      if (at === second.length) {
        writeSync(fd, second);
        fdatasyncSync(fd);
        at = 0;
      }
    },
    () => closeSync(fd),
  );
  return result({
    id: 'formats.bdf.wall',
    title: `BDF+ writer, ${channels} ch at ${rate} Hz, 10 ms frames, ${seconds} s of data with its crash-safety cadence, wall time`,
    ratio: ours / plain,
    ratioOf: 'wall time of the BDF+ writer ÷ of a plain 24-bit encoder with one fdatasync per second',
    max: 2.5,
    absolute: {
      timesRealTime: (seconds * 1000) / ours,
      plainTimesRealTime: (seconds * 1000) / plain,
      budgetTimesRealTime: 100,
    },
  });
}

export async function runFormats(log) {
  const dir = mkdtempSync(join(tmpdir(), 'headsetd-bench-'));
  const out = [];
  try {
    const data = frame();
    for (const format of ['edf', 'bdf', 'csv']) {
      out.push(await writerBench(dir, format, data));
      log(out.at(-1));
    }
    out.push(bdfWallClock(dir));
    log(out.at(-1));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

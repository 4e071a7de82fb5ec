/**
 * generator → recorder (EDF, BDF, CSV) in a real worker, read back by the project's reader, EDFlib
 * and MNE (docs/recording.md): samples within half a quantisation step, labels, rate, start time,
 * physical range from the frames' range, sidecars complete after a clean stop.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { readCsvFile } from '../../src/formats/csv-reader.js';
import { WorkerRuntime } from '../../src/streams/runtime/worker-runtime.js';
import { STREAM_HOST } from '../support/stream-host.js';
import { readEdf, readJson, generatorSample } from '../recordings/support.js';
import { definition, pipe } from '../runtime/helpers.js';
import { edflibCheck } from '../support/edf-check.js';
import { mneRead } from '../support/mne-check.js';
import { eventually } from '../support/wait.js';
import { scratchDir } from '../support/scratch.js';

const dataDir = scratchDir('headsetd-recorder');
const recordings = path.join(dataDir, 'recordings');
let runtime: WorkerRuntime | undefined;

afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

const RATE = 250;
const AMPLITUDES = [100, 30];
const FREQUENCIES = [10, 3];
const NAMES = ['Fp1', 'Cz', 'O2'];

describe('recorder round trip', () => {
  test('EDF, BDF and CSV hold the generator samples; EDFlib and MNE read them', async () => {
    runtime = new WorkerRuntime({ workerEntry: STREAM_HOST, dataDir, executablesDirs: [] });
    const stream = definition(
      [
        {
          id: 'gen',
          executable: 'signal-generator',
          config: {
            sampleRate: RATE,
            amplitudes: AMPLITUDES,
            frequencies: FREQUENCIES,
            channels: 3,
            channelNames: NAMES,
          },
        },
        { id: 'edf', executable: 'recorder', config: { filename: 'trip', format: 'edf' } },
        { id: 'bdf', executable: 'recorder', config: { filename: 'trip.bdf' } },
        {
          id: 'csv',
          executable: 'recorder',
          config: { filename: 'trip', format: 'csv', includeTimestamps: true },
        },
      ],
      [
        pipe('p1', 'gen', 'edf', { policy: 'block' }),
        pipe('p2', 'gen', 'bdf', { policy: 'block' }),
        pipe('p3', 'gen', 'csv', { policy: 'block' }),
      ],
    );
    await runtime.start(stream);
    const status = await eventually(() => {
      const s = runtime?.status(stream.id);
      return (s?.nodes.edf?.metrics.samplesProcessed ?? 0) >= 2.3 * RATE ? s : undefined;
    });
    expect(status.nodes.edf?.info).toMatchObject({ recording: 'trip.edf', format: 'edf' });
    expect(status.nodes.bdf?.info).toMatchObject({ recording: 'trip.bdf' });
    expect(status.nodes.csv?.info).toMatchObject({ recording: 'trip.csv' });
    await runtime.stop(stream.id);

    const expected = (k: number) => generatorSample(k, RATE, AMPLITUDES, FREQUENCIES);
    const files = ['trip.edf', 'trip.bdf'].map((n) => path.join(recordings, n));
    const samples: Record<string, number> = {};
    for (const file of files) {
      const meta = readJson(path.join(recordings, `.${path.basename(file)}.json`));
      expect(meta).toMatchObject({
        complete: true,
        channels: NAMES,
        sampleRate: RATE,
        streamId: stream.id,
        nodeId: path.extname(file).slice(1),
      });
      const n = Math.round((meta.durationSeconds as number) * RATE);
      samples[file] = n;
      expect(n).toBeGreaterThanOrEqual(2.3 * RATE);
      const edf = readEdf(file);
      expect(edf.labels).toEqual(NAMES);
      expect(edf.units).toEqual(['uV', 'uV', 'uV']);
      // range = Σ|amplitudes| = 130 µV: the physical range, so nothing clips.
      expect(edf.physicalMax).toEqual([130, 130, 130]);
      expect(edf.rate).toBe(RATE);
      // The file keeps the first sample’s fraction of a millisecond (read here rounded to the ms);
      // `created` (ISO 8601) has it truncated.
      expect(Math.abs(edf.start - new Date(meta.created as string).getTime())).toBeLessThanOrEqual(1);
      for (let c = 0; c < 3; c++) {
        const signal = edf.signals[c]!;
        let worst = 0;
        for (let k = 0; k < n; k++) worst = Math.max(worst, Math.abs(signal[k]! - expected(k)));
        expect(worst).toBeLessThanOrEqual(edf.halfStep[c]! * 1.0001);
      }
      expect(edf.annotations[0]).toMatchObject({ onset: 0, text: 'Recording starts' });
      expect(edf.annotations.at(-1)?.text).toBe('Recording ends');
      expect(edf.annotations.at(-1)?.onset).toBeCloseTo(n / RATE, 6);

      const lib = edflibCheck(file);
      expect(lib.ok).toBe(true);
      expect(lib.filetype).toBe(path.extname(file) === '.edf' ? 1 : 3);
      expect(lib.signals.map((s) => s.label.trim())).toEqual(NAMES);
      expect(
        lib.signals[1]!.samples!.slice(0, n).every(
          (v, k) => Math.abs(v - expected(k)) <= edf.halfStep[1]! * 1.0001,
        ),
      ).toBe(true);
      expect(lib.annotations.map((a) => a.text)).toContain('Recording starts');
    }

    const mne = await mneRead(files, Math.floor(2.3 * RATE));
    for (const result of mne) {
      expect(result.ok, result.error).toBe(true);
      expect(result.chNames).toEqual(NAMES);
      expect(result.sfreq).toBe(RATE);
      const half = result.path.endsWith('.edf') ? 130 / 65535 : 130 / 16777215;
      result.data[2]!.forEach((v, k) => {
        expect(Math.abs(v - expected(k))).toBeLessThanOrEqual(half * 1.001);
      });
      expect(result.annotations.map((a) => a.description)).toContain('Recording starts');
    }

    const csv = readCsvFile(path.join(recordings, 'trip.csv'));
    expect(csv.header).toEqual(['timestamp', ...NAMES]);
    const csvMeta = readJson(path.join(recordings, '.trip.csv.json'));
    expect(csvMeta).toMatchObject({ complete: true, format: 'csv', eventsFile: 'trip.events.csv' });
    expect(csv.rows.length).toBe(Math.round((csvMeta.durationSeconds as number) * RATE));
    // `created` is the first sample's time to the millisecond; the rows carry it to the microsecond.
    const t0 = csv.rows[0]![0]!;
    expect(Math.abs(t0 - new Date(csvMeta.created as string).getTime())).toBeLessThan(1);
    csv.rows.forEach((row, k) => {
      // float32 values round-trip exactly; timestamps follow the sample clock.
      expect(row.slice(1).map(Math.fround)).toEqual([expected(k), expected(k), expected(k)]);
      expect(Math.abs(row[0]! - (t0 + (k * 1000) / RATE))).toBeLessThan(0.01);
    });
    expect(existsSync(path.join(recordings, 'trip.events.csv'))).toBe(true);
  });
});

/**
 * The replay device on small files written by the test: units, refusals, the rate rule
 * (native by default, a standard rate resamples, reset returns to native), gain ignored, channel
 * selection, EDF+D gaps, a torn last record, and the rest of the device behaving as simulated.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { systemClock } from '../clock.js';
import { createReplayHeadset, ManualClock, type ReplayHeadset } from './index.js';
import type { Frame } from '../../core/frame.js';
import { type EdfOptions, type TestSignal, writeTestEdf } from '../../../test/support/write-edf.js';
import { scratchDir } from '../../../test/support/scratch.js';

const dir = scratchDir('headsetd-replay');

/** The minimal EDF writer of the tests (test/support/write-edf.ts), writing into this file's directory. */
const writeEdf = (name: string, signals: TestSignal[], options: EdfOptions): string =>
  writeTestEdf(dir, name, signals, options);

/** Digital value the writer stores for `physical`, back in physical units (0.1 per count). */
const stored = (physical: number): number => Math.fround(Math.round(physical * 10) / 10);

let headset: ReplayHeadset | undefined;
afterEach(async () => {
  await headset?.close();
  headset = undefined;
});

function start(file: string): { clock: ManualClock; frames: Frame[]; device: ReplayHeadset } {
  const clock = new ManualClock();
  const device = createReplayHeadset(file, { clock });
  headset = device;
  const frames: Frame[] = [];
  device.eeg.onFrame((frame) => frames.push(frame));
  return { clock, frames, device };
}

function column(frames: readonly Frame[], channel: string): number[] {
  return frames.flatMap((frame) => {
    const width = frame.channels.length;
    const c = frame.channels.indexOf(channel);
    if (c < 0) throw new Error(`no ${channel} in ${frame.channels.join(',')}`);
    return Array.from({ length: frame.data.length / width }, (_, r) => frame.data[r * width + c]!);
  });
}

/** Amplitude and phase (radians) of the `hz` component of x sampled at `rate`, over whole periods. */
function tone(
  x: readonly number[],
  hz: number,
  rate: number,
  t0: number,
): { amplitude: number; phase: number } {
  let s = 0;
  let c = 0;
  x.forEach((v, i) => {
    const w = 2 * Math.PI * hz * ((t0 + i) / rate);
    s += v * Math.sin(w);
    c += v * Math.cos(w);
  });
  return { amplitude: (2 * Math.hypot(s, c)) / x.length, phase: Math.atan2(c, s) };
}

/** Advances the clock in 10-ms steps, letting promise callbacks (which may set timers) run between. */
async function run(clock: ManualClock, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 10) {
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(Math.min(10, ms - t));
  }
  await new Promise((resolve) => setImmediate(resolve));
}

const ramp = (k: number): number => ((k % 500) - 250) * 0.7;

describe('units and refusals', () => {
  test('mV and V are converted to µV; the values keep their own scale', async () => {
    const file = writeEdf(
      'units.edf',
      [
        { label: 'EEG Fp1-Ref', unit: 'mV', samplesPerRecord: 100, value: (k) => ramp(k) / 1000 },
        { label: 'O2', unit: 'V', samplesPerRecord: 100, value: () => 0.0001 },
        { label: 'Cz', unit: 'µV', samplesPerRecord: 100, value: ramp },
      ],
      { records: 3 },
    );
    const { clock, frames, device } = start(file);
    expect(device.recording.channels).toEqual([
      { electrode: 'O2', label: 'O2', unit: 'V' },
      // µ in Latin-1: the header is ASCII, the reader shows it as '?', the device accepts it.
      { electrode: 'CZ', label: 'Cz', unit: '?V' },
      { electrode: 'FP1', label: 'EEG Fp1-Ref', unit: 'mV' },
    ]);
    await device.eeg.start('client');
    clock.advance(500);
    const fp1 = column(frames, 'Fp1');
    // 0.1 mV counts: the file holds ramp/1000 rounded to 0.1 mV, i.e. ramp rounded to 100 µV.
    expect(fp1.slice(0, 50)).toEqual(
      Array.from({ length: 50 }, (_, k) => Math.fround((Math.round(ramp(k) / 100) / 10) * 1000)),
    );
    expect(column(frames, 'O2').every((v) => v === 0)).toBe(true); // 0.0001 V is below 0.1 V counts
    expect(column(frames, 'Cz').slice(0, 50)).toEqual(Array.from({ length: 50 }, (_, k) => stored(ramp(k))));
  });

  test('a channel in a unit that is not a voltage refuses the file, naming it', () => {
    const file = writeEdf('degrees.edf', [{ label: 'Pz', unit: 'degC', samplesPerRecord: 10 }], {
      records: 1,
    });
    expect(() => createReplayHeadset(file)).toThrow(
      expect.objectContaining({
        code: 'validation_failed',
        message: expect.stringMatching(/"Pz" \(PZ\) is in "degC"/),
      }),
    );
  });

  test('a file without any electrode channel is refused with the labels it has', () => {
    const file = writeEdf(
      'no-eeg.edf',
      [
        { label: 'ECG ECG1', samplesPerRecord: 10 },
        { label: 'Fpz', samplesPerRecord: 10 },
        { label: 'CMS', samplesPerRecord: 10 },
      ],
      { records: 1 },
    );
    expect(() => createReplayHeadset(file)).toThrow(
      expect.objectContaining({
        code: 'validation_failed',
        message: expect.stringContaining('"ECG ECG1", "Fpz", "CMS"'),
        details: { labels: ['ECG ECG1', 'Fpz', 'CMS'] },
      }),
    );
  });

  test('a missing or unreadable file is refused clearly', () => {
    expect(() => createReplayHeadset(path.join(dir, 'nothing-here.edf'))).toThrow(
      expect.objectContaining({
        code: 'validation_failed',
        message: expect.stringContaining('nothing-here.edf'),
      }),
    );
    const junk = path.join(dir, 'junk.edf');
    writeFileSync(junk, 'not an EDF file');
    expect(() => createReplayHeadset(junk)).toThrow(expect.objectContaining({ code: 'validation_failed' }));
  });

  test('a file that is not EDF or BDF is refused as such, naming what it looks like and what to do', () => {
    const csv = path.join(dir, 'recording.csv');
    // Longer than an EDF header, so that it is refused for what it is, not for its size.
    writeFileSync(csv, `time,Fp1,Fp2\n${'0.004,1.5,2.5\n'.repeat(40)}`);
    const zip = path.join(dir, 'recording.edf');
    writeFileSync(zip, Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(300)]));
    for (const [file, kind] of [
      [csv, 'CSV or other text'],
      [zip, 'a ZIP archive'],
    ] as const) {
      expect(() => createReplayHeadset(file)).toThrow(
        expect.objectContaining({
          code: 'validation_failed',
          message: expect.stringContaining(
            `${file} is not an EDF or BDF file (it looks like ${kind}): the replay device plays EDF, EDF+, BDF and BDF+ recordings only`,
          ) as string,
        }),
      );
    }
  });

  test('duplicates and channels at another rate are dropped with a warning', () => {
    const file = writeEdf(
      'mixed.edf',
      [
        { label: 'EEG C3', samplesPerRecord: 100 },
        { label: 'C3-A2', samplesPerRecord: 100 },
        { label: 'C4', samplesPerRecord: 100 },
        { label: 'O1', samplesPerRecord: 50 },
      ],
      { records: 1 },
    );
    headset = createReplayHeadset(file);
    expect(headset.recording.channels.map((c) => c.electrode)).toEqual(['C3', 'C4']);
    expect(headset.recording.droppedLabels).toEqual(['C3-A2', 'O1']);
    expect(headset.recording.dropped).toEqual([
      { label: 'C3-A2', reason: 'names C3 like "EEG C3" before it; only the first is played' },
      { label: 'O1', reason: 'runs at 50 Hz, not at the 100 Hz of the other EEG channels' },
    ]);
    expect(headset.recording.warnings.join(' ')).toMatch(/C3-A2.*only the first is played/);
    expect(headset.recording.warnings.join(' ')).toMatch(/"O1" runs at 50 Hz, not at the 100 Hz/);
  });
});

describe('rate, gain and channels', () => {
  const TONE_HZ = 10;
  const toneFile = (): string =>
    writeEdf(
      'tone160.edf',
      [
        {
          label: 'O1',
          samplesPerRecord: 160,
          value: (k) => 50 * Math.sin((2 * Math.PI * TONE_HZ * k) / 160),
        },
        { label: 'Cz', samplesPerRecord: 160, value: ramp },
      ],
      { records: 4 },
    );

  test('plays at the file rate; a standard rate resamples (tone kept, aligned); reset returns to the file rate', async () => {
    const { clock, frames, device } = start(toneFile());
    await device.eeg.start('client');
    clock.advance(1000);
    expect(frames.every((f) => f.sampleRate === 160)).toBe(true);
    const native = frames.length;

    await expect(device.eeg.configure({ samplingFrequency: 250 })).resolves.toMatchObject({
      samplingFrequency: 250,
    });
    clock.advance(2000);
    const resampled = frames.slice(native);
    expect(resampled[0]!.discontinuity).toBe(true);
    expect(resampled.slice(1).some((f) => f.discontinuity === true)).toBe(false);
    expect(resampled.every((f) => f.sampleRate === 250 && f.data.length === 3 * 2)).toBe(true);
    // The run began at file sample 160 (1 s): output n is the file at 1 s + n / 250.
    const o1 = column(resampled, 'O1').slice(125, 500);
    const { amplitude, phase } = tone(o1, TONE_HZ, 250, 250 + 125);
    expect(amplitude).toBeGreaterThan(49.5);
    expect(amplitude).toBeLessThan(50.5);
    expect(Math.abs(phase)).toBeLessThan(0.02);

    await device.eeg.reset();
    expect(device.eeg.config().samplingFrequency).toBe(160);
    await expect(device.eeg.configure({ samplingFrequency: 300 })).rejects.toMatchObject({
      code: 'validation_failed',
      message: expect.stringContaining('250, 500, 1000, 2000, 4000, 8000, 16000, 160 Hz'),
    });
  });

  test('the loop is flagged when resampling too', async () => {
    const { clock, frames, device } = start(toneFile());
    await device.eeg.start('client', { samplingFrequency: 250 });
    clock.advance(5000);
    const flagged = frames.flatMap((f, i) => (f.discontinuity === true ? [i * 3] : []));
    // 4 s of file = 1000 rows at 250 Hz: the frame holding row 1000 (rows 999..1001).
    expect(flagged).toEqual([0, 999]);
  });

  test('gain does not change recorded values; channels select among those of the file', async () => {
    const { clock, frames, device } = start(toneFile());
    await device.eeg.configure({ gain: 1, channels: ['cz', 'FP2', 'O1'] });
    expect(device.eeg.config().channels).toEqual(['CZ', 'FP2', 'O1']);
    await device.eeg.start('client');
    clock.advance(500);
    expect(frames[0]!.channels).toEqual(['Cz', 'O1']);
    // At gain 1 an ADC count is 0.54 µV: the 0.1 µV steps of the file survive untouched.
    expect(column(frames, 'Cz')).toEqual(Array.from({ length: 80 }, (_, k) => stored(ramp(k))));
  });

  test('the position continues across stops; a new device starts at the beginning', async () => {
    const { clock, frames, device } = start(toneFile());
    await device.eeg.start('client');
    clock.advance(100);
    await device.eeg.stop('client');
    clock.advance(5000);
    await device.eeg.start('client');
    clock.advance(100);
    expect(column(frames, 'Cz')).toEqual(Array.from({ length: 32 }, (_, k) => stored(ramp(k))));
  });
});

describe('rates of real files', () => {
  test('a fractional file rate (100 samples per 0.3 s) plays natively and resamples exactly', async () => {
    const rate = 1000 / 3;
    const file = writeEdf(
      'fractional.edf',
      [{ label: 'P4', samplesPerRecord: 100, value: (k) => 40 * Math.sin((2 * Math.PI * 10 * k) / rate) }],
      { records: 10, duration: 0.3 },
    );
    const { clock, frames, device } = start(file);
    expect(device.eeg.config().samplingFrequency).toBeCloseTo(rate, 9);
    await device.eeg.start('client', { samplingFrequency: 250 });
    clock.advance(2000);
    expect(frames.every((f) => f.sampleRate === 250)).toBe(true);
    const { amplitude, phase } = tone(column(frames, 'P4').slice(125, 500), 10, 250, 125);
    expect(amplitude).toBeGreaterThan(39.6);
    expect(amplitude).toBeLessThan(40.4);
    expect(Math.abs(phase)).toBeLessThan(0.02);
  });

  test('plays on the system clock unless given another', async () => {
    // Real-time pacing is the clock's; how close the system clock keeps to real time on a busy
    // machine is measured by the benchmarks, not asserted by a test.
    const file = writeEdf('realtime.edf', [{ label: 'Fz', samplesPerRecord: 200, value: ramp }], {
      records: 2,
    });
    const device = createReplayHeadset(file);
    headset = device;
    expect(device.clock).toBe(systemClock);
  });
});

describe('file structure', () => {
  test('EDF+D: a record after a gap starts with a discontinuity', async () => {
    const onsets = [0, 1, 5, 6];
    const tal = (r: number): Buffer => Buffer.from(`+${onsets[r]}\x14\x14\x00`, 'latin1');
    const file = writeEdf(
      'gaps.edf',
      [
        { label: 'Pz', samplesPerRecord: 100, value: ramp },
        { label: 'EDF Annotations', samplesPerRecord: 30, bytes: tal },
      ],
      { records: 4, reserved: 'EDF+D' },
    );
    const { clock, frames, device } = start(file);
    expect(device.recording.variant).toBe('discontinuous');
    await device.eeg.start('client');
    clock.advance(4500);
    const flagged = frames.flatMap((f, i) => (f.discontinuity === true ? [i] : []));
    // 1 row per frame at 100 Hz: the gap before record 2, the loop at row 400.
    expect(flagged).toEqual([0, 200, 400]);
    expect(column(frames, 'Pz').slice(0, 400)).toEqual(
      Array.from({ length: 400 }, (_, k) => stored(ramp(k))),
    );
  });

  test('a torn file plays its whole records and loops', async () => {
    const file = writeEdf('torn.edf', [{ label: 'T7', samplesPerRecord: 100, value: ramp }], {
      records: 2,
      recordCountField: 3,
      extraBytes: 51,
    });
    const { clock, frames, device } = start(file);
    expect(device.recording.samples).toBe(200);
    expect(device.recording.warnings.join(' ')).toMatch(/header says 3 records/);
    await device.eeg.start('client');
    clock.advance(2500);
    const t3 = column(frames, 'T3');
    // Samples 0 to 250, at 0 to 2500 ms: each exists from its instant.
    expect(t3).toEqual(Array.from({ length: 251 }, (_, k) => stored(ramp(k % 200))));
  });
});

describe('everything but the EEG is the simulated headset', () => {
  test('impedance, motors, status, events and info', async () => {
    const { clock, device } = start(
      writeEdf('plain.edf', [{ label: 'C4', samplesPerRecord: 100, value: ramp }], { records: 1 }),
    );
    const events: string[] = [];
    device.onEvent((event) => {
      if (event.type === 'system') events.push(event.eventType);
    });
    expect(device.info()).toMatchObject({ kind: 'replay', hardware: 'HS-21 replay of plain.edf' });
    // Electrodes start on the scalp, as when the recording was made.
    const measuring = device.impedance.measure(['C4']);
    await run(clock, 100);
    expect((await measuring).C4).toBeLessThan(30_000);
    await device.eeg.start('client');
    expect(device.status().state).toBe('acquiring');
    await expect(device.impedance.measure()).rejects.toMatchObject({ code: 'device_busy' });
    await device.motors.move([{ electrode: 'C4', movement: 'RETRACT', displacement: 30 }]);
    const moved = device.motors.waitUntilComplete(['C4']);
    await run(clock, 1600);
    await moved;
    expect(device.motors.positions(['C4']).C4).toBeCloseTo(
      device.simulation.contactPosition('C4') + 15 - 30,
      5,
    );
    await device.eeg.stop('client');
    expect(events).toEqual(['acquisition_started', 'acquisition_stopped']);
    await device.close();
    await device.close();
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { adcLsbMicrovolts, frameRows, quantise } from './adc.js';
import { dateClock, systemClock } from './clock.js';
import { ManualClock } from './replay/manual-clock.js';
import { EEG_ELECTRODES } from '../core/electrodes.js';
import { createSimulatedHeadset, Random, type SimulatedHeadset } from './simulated/index.js';
import type { EegSignalSource } from './signal-source.js';
import type { Frame } from '../core/frame.js';
import { advance, collectEvents, collectFrames, fakeTimeHeadset } from '../../test/support/device.js';

describe('ADC model', () => {
  it('rounds to the step of the gain and clips at ±4.5 V / gain', () => {
    const data = new Float32Array([0.3, -0.3, 1e9, -1e9, 100]);
    quantise(data, 1);
    const lsb = adcLsbMicrovolts(1);
    expect(lsb).toBeCloseTo(0.536441802978515625, 12);
    expect(data[0]).toBeCloseTo(lsb, 6);
    expect(data[1]).toBeCloseTo(-lsb, 6);
    expect(data[2]).toBeCloseTo((2 ** 23 - 1) * lsb, -1);
    expect(data[2]).toBeLessThan(4_500_000);
    expect(data[3]).toBeCloseTo(-4_500_000, -1);
    expect(Math.abs((data[4] ?? 0) / lsb - Math.round((data[4] ?? 0) / lsb))).toBeLessThan(1e-4);
    const high = new Float32Array([1e9]);
    quantise(high, 24);
    expect(high[0]).toBeCloseTo(4_500_000 / 24, -1);
  });

  it('frames hold about 10 ms, at least one sample', () => {
    expect(frameRows(250)).toBe(3);
    expect(frameRows(1000)).toBe(10);
    expect(frameRows(16000)).toBe(160);
    expect(frameRows(50)).toBe(1);
  });
});

describe('acquisition on fake time', () => {
  let headset: SimulatedHeadset;

  beforeEach(() => {
    vi.useFakeTimers();
    headset = fakeTimeHeadset();
  });

  afterEach(async () => {
    await headset.close();
    vi.useRealTimers();
  });

  it('never drifts: the sample count follows elapsed time however the timers fall', async () => {
    await headset.eeg.configure({ samplingFrequency: 500 });
    const frames = collectFrames(headset);
    await headset.eeg.start('client');
    const random = new Random(3);
    let elapsed = 0;
    while (elapsed < 30_000) {
      const step = Math.round(random.uniform(1, 400));
      await vi.advanceTimersByTimeAsync(step);
      elapsed += step;
    }
    const samples = frames.reduce((n, f) => n + f.data.length / f.channels.length, 0);
    const due = Math.floor((elapsed * 500) / 1000);
    expect(samples).toBeLessThanOrEqual(due);
    expect(samples).toBeGreaterThan(due - frameRows(500));
    expect(headset.eeg.state().samples).toBe(samples);
  });

  it('applies a new configuration at once while running: next frame has the new rate and a discontinuity', async () => {
    const frames = collectFrames(headset);
    await headset.eeg.start('client');
    await advance(100);
    await headset.eeg.configure({ samplingFrequency: 2000, channels: ['o1', 'Fp2'], gain: 12 });
    const before = frames.length;
    await advance(100);
    const after = frames.slice(before);
    expect(after[0]).toMatchObject({ sampleRate: 2000, channels: ['O1', 'Fp2'], discontinuity: true });
    expect(after.slice(1).every((f) => f.discontinuity === undefined && f.sampleRate === 2000)).toBe(true);
    expect(after[0]!.seq).toBe(frames[before - 1]!.seq + 1);
    expect(after.reduce((n, f) => n + f.data.length / 2, 0)).toBe(200);
    expect(headset.eeg.state()).toMatchObject({
      streaming: true,
      config: { gain: 12, samplingFrequency: 2000 },
    });
  });

  it('keeps running without a discontinuity when the configuration does not change', async () => {
    const frames = collectFrames(headset);
    await headset.eeg.start('client');
    await advance(100);
    await headset.eeg.configure({ gain: 24, samplingFrequency: 250 });
    await advance(100);
    expect(frames.filter((f) => f.discontinuity === true)).toHaveLength(1);
  });

  it('refuses out-of-range settings and channels without EEG, naming what is allowed', async () => {
    await expect(headset.eeg.configure({ gain: 3 })).rejects.toThrow(/1, 2, 4, 6, 8, 12, 24/);
    await expect(headset.eeg.configure({ samplingFrequency: 300 })).rejects.toMatchObject({
      code: 'validation_failed',
    });
    await expect(headset.eeg.configure({ channels: ['CMS'] })).rejects.toThrow(/no EEG channel/);
    await expect(headset.eeg.configure({ channels: ['Oz'] })).rejects.toMatchObject({
      code: 'validation_failed',
    });
    expect(headset.eeg.config()).toMatchObject({
      gain: 24,
      samplingFrequency: 250,
      channels: EEG_ELECTRODES,
    });
  });

  it("keeps a client's acquisition running when the streams release theirs", async () => {
    await headset.eeg.start('client');
    await headset.eeg.start('streams', { samplingFrequency: 1000 });
    expect(headset.eeg.config().samplingFrequency).toBe(250); // running acquisition keeps its rate
    expect((await headset.eeg.stop('streams')).streaming).toBe(true);
    expect((await headset.eeg.stop('client')).streaming).toBe(false);
  });

  it('starts at the streams’ rate when idle, and stops when the last owner leaves', async () => {
    const state = await headset.eeg.start('streams', { samplingFrequency: 1000 });
    expect(state).toMatchObject({
      streaming: true,
      owners: ['streams'],
      config: { samplingFrequency: 1000 },
    });
    await advance(1000);
    expect((await headset.eeg.stop('streams')).samples).toBe(1000);
  });

  it('emits acquisition_started and acquisition_stopped, and a forced reset stops every owner', async () => {
    const events = collectEvents(headset);
    await headset.eeg.configure({ gain: 8 });
    await headset.eeg.start('client');
    await headset.eeg.start('streams');
    expect(headset.status().state).toBe('acquiring');
    await advance(200);
    // The streams' samples would stop: refused unless forced.
    await expect(headset.eeg.reset()).rejects.toMatchObject({ code: 'device_busy' });
    expect(headset.eeg.state().streaming).toBe(true);
    const config = await headset.eeg.reset({ force: true });
    expect(config.gain).toBe(24);
    expect(headset.eeg.state().streaming).toBe(false);
    const types = events.flatMap((e) => (e.type === 'system' ? [e.eventType] : []));
    expect(types).toEqual(['acquisition_started', 'acquisition_stopped']);
  });

  it('keeps delivering to other listeners when one throws', async () => {
    const errors: unknown[] = [];
    const sturdy = fakeTimeHeadset({ onListenerError: (error) => errors.push(error) });
    sturdy.eeg.onFrame(() => {
      throw new Error('listener bug');
    });
    const frames = collectFrames(sturdy);
    await sturdy.eeg.start('client');
    await advance(100);
    expect(frames.length).toBeGreaterThan(5);
    expect(errors.length).toBe(frames.length);
    await sturdy.close();
  });

  it('sends quality events once a second while acquiring', async () => {
    const events = collectEvents(headset);
    await headset.eeg.start('client');
    await advance(3000);
    const quality = events.filter((e) => e.type === 'quality');
    expect(quality.length).toBeGreaterThanOrEqual(2);
    // Retracted electrodes: unusable.
    expect(quality[0]).toMatchObject({ data: { overall: 0, channels: { O1: 0 } } });
  });
});

describe('acquisition from another signal source (the replay device)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('leaves out channels the source lacks and flags the gaps it reports', async () => {
    vi.useFakeTimers();
    let block = 0;
    const source: EegSignalSource = {
      available: ['O1', 'CZ'],
      begin: (_rate, channels) => {
        expect(channels).toEqual(['CZ', 'O1']);
      },
      fill: (out, count) => {
        out.fill(block % 3);
        block++;
        return count > 0 && block === 5; // a loop back to the file's start
      },
    };
    const replay = createSimulatedHeadset({
      clock: dateClock(),
      signalSource: source,
      info: { kind: 'replay' },
    });
    await replay.eeg.configure({ channels: ['CZ', 'FP1', 'O1'] });
    const frames = collectFrames(replay);
    await replay.eeg.start('client');
    await advance(100);
    expect(frames[0]?.channels).toEqual(['Cz', 'O1']);
    expect(frames.map((f) => f.discontinuity === true)).toEqual(frames.map((_f, i) => i === 0 || i === 4));
    // Quantised by the ADC: within one count (0.022 µV at gain 24) of what the source gave.
    for (const value of frames[1]!.data) expect(value).toBeCloseTo(1, 1);
    expect(replay.info().kind).toBe('replay');
    await replay.close();
  });
});

describe('pacing', () => {
  it('delivers 19 channels at 16 kHz paced by its clock, without drift: 16 000 samples per second of it', async () => {
    // The device's own clock is the behaviour here; how close to real time the system clock keeps
    // it on a busy machine is measured by the benchmarks, not asserted by a test.
    const clock = new ManualClock();
    const headset = createSimulatedHeadset({ seed: 5, clock });
    await headset.eeg.configure({ samplingFrequency: 16000 });
    const frames: Frame[] = [];
    headset.eeg.onFrame((f) => frames.push(f));
    await headset.eeg.start('client');
    for (let t = 0; t < 3000; t += 10) {
      await new Promise((resolve) => setImmediate(resolve));
      clock.advance(10);
    }
    const { samples } = await headset.eeg.stop('client');
    await headset.close();
    expect(samples).toBe(3 * 16000);
    expect(frames.every((f) => f.data.length === 160 * 19)).toBe(true);
  });

  it("stamps a run's samples at the instants it paces them, from one reading of the clock (a late second reading stamped every frame late)", async () => {
    // Every new wall-clock reading comes 0.5 ms late, as a thread's first one or one after a
    // preemption may: the run's timestamps must not take a second reading.
    const clock = new ManualClock(1_700_000_000_000, 0);
    const late = Object.assign(Object.create(clock) as ManualClock, { wallNow: () => clock.wallNow() + 0.5 });
    const headset = createSimulatedHeadset({ seed: 5, clock: late });
    await headset.eeg.configure({ samplingFrequency: 1000 });
    const frames: Frame[] = [];
    headset.eeg.onFrame((f) => frames.push(f));
    await headset.eeg.start('client');
    for (let t = 0; t < 30; t += 10) {
      await new Promise((resolve) => setImmediate(resolve));
      clock.advance(10);
    }
    await headset.eeg.stop('client');
    await headset.close();
    // Sample k is due k ms after the start (1 kHz), and stamped so.
    expect(frames.map((f) => f.timestamp - 1_700_000_000_000)).toEqual([0, 10, 20]);
  });

  it('runs on the system clock unless given another', async () => {
    const headset = createSimulatedHeadset({ seed: 5 });
    expect(headset.clock).toBe(systemClock);
    await headset.close();
  });
});

describe('determinism under seed', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  async function record(seed: number, readOthers = false): Promise<Float32Array[]> {
    vi.useFakeTimers();
    const headset = createSimulatedHeadset({ seed, clock: dateClock() });
    const frames = collectFrames(headset);
    await headset.motors.move([{ electrode: 'O1', movement: 'RELEASE', displacement: 80 }]);
    await headset.eeg.start('client');
    for (let t = 0; t < 3000; t += 37) {
      if (readOthers) {
        headset.imu.primary();
        headset.imu.node(2);
        headset.power.battery();
      }
      await vi.advanceTimersByTimeAsync(37);
    }
    await headset.eeg.stop('client');
    await headset.close();
    vi.useRealTimers();
    return frames.map((f) => f.data);
  }

  it('gives the same samples for the same seed and calls, other samples for another seed', async () => {
    const a = await record(11);
    const b = await record(11);
    const c = await record(12);
    expect(a.length).toBeGreaterThan(200);
    expect(b).toEqual(a);
    expect(c[0]).not.toEqual(a[0]);
  });

  it('gives the same samples when other parts of the device are read in between', async () => {
    expect(await record(11, true)).toEqual(await record(11));
  });

  it('gives the same contact positions, impedances and IMU readings for the same seed', () => {
    const one = createSimulatedHeadset({ seed: 99, clock: dateClock() });
    const two = createSimulatedHeadset({ seed: 99, clock: dateClock() });
    expect(EEG_ELECTRODES.map((e) => one.simulation.contactPosition(e))).toEqual(
      EEG_ELECTRODES.map((e) => two.simulation.contactPosition(e)),
    );
    expect(one.power.battery()).toEqual(two.power.battery());
    void one.close();
    void two.close();
  });
});

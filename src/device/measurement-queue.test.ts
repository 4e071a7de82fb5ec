import { describe, expect, it } from 'vitest';
import type { Electrode } from '../core/electrodes.js';
import type { AcquisitionOwner, ElectrodeMap } from './headset.js';
import { MeasurementQueue } from './measurement-queue.js';

/** A measurement the test ends by hand. */
interface Running {
  readonly electrodes: readonly Electrode[];
  readonly done: (values: ElectrodeMap<number>) => void;
  readonly fail: (error: Error) => void;
  stopped: boolean;
}

function setup(): {
  queue: MeasurementQueue;
  runs: Running[];
  measured: ElectrodeMap<number>[];
  owners: AcquisitionOwner[];
} {
  const runs: Running[] = [];
  const measured: ElectrodeMap<number>[] = [];
  const owners: AcquisitionOwner[] = [];
  const queue = new MeasurementQueue({
    start: (electrodes, done, fail) => {
      const run: Running = { electrodes, done, fail, stopped: false };
      runs.push(run);
      return () => {
        run.stopped = true;
      };
    },
    acquisitionOwners: () => owners,
    onMeasured: (values) => {
      measured.push(values);
    },
  });
  return { queue, runs, measured, owners };
}

const list =
  (...electrodes: Electrode[]) =>
  (): readonly Electrode[] =>
    electrodes;

/** Lets promise callbacks run, so that a settled promise has told its reactions. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('MeasurementQueue', () => {
  it('runs requests one after another in the order they came', async () => {
    const { queue, runs, measured } = setup();
    const first = queue.submit(list('FP1'));
    const second = queue.submit(list('CZ', 'PZ'));
    expect(queue.measuring()).toBe(true);
    expect(runs.map((r) => r.electrodes)).toEqual([['FP1']]);
    runs[0]?.done({ FP1: 5000 });
    await expect(first).resolves.toEqual({ FP1: 5000 });
    expect(measured).toEqual([{ FP1: 5000 }]);
    expect(runs.map((r) => r.electrodes)).toEqual([['FP1'], ['CZ', 'PZ']]);
    runs[1]?.done({ CZ: 1, PZ: 2 });
    await expect(second).resolves.toEqual({ CZ: 1, PZ: 2 });
    expect(queue.measuring()).toBe(false);
  });

  it('a request aborted while it waits leaves the queue at once; the running one goes on', async () => {
    const { queue, runs } = setup();
    const running = queue.submit(list('FP1'));
    const controller = new AbortController();
    const waiting = queue.submit(list('CZ'), { signal: controller.signal, holder: 'second' });
    controller.abort(new Error('not needed any more'));
    await expect(waiting).rejects.toThrow('not needed any more');
    expect(runs).toHaveLength(1);
    expect(runs[0]?.stopped).toBe(false);
    runs[0]?.done({ FP1: 7 });
    await expect(running).resolves.toEqual({ FP1: 7 });
    expect(runs).toHaveLength(1);
    expect(queue.measuring()).toBe(false);
  });

  it('a request aborted while it runs is stopped, the next starts, and its late report is ignored', async () => {
    const { queue, runs, measured } = setup();
    const controller = new AbortController();
    const running = queue.submit(list('FP1'), { signal: controller.signal });
    const next = queue.submit(list('CZ'));
    controller.abort();
    expect(runs[0]?.stopped).toBe(true);
    expect(runs.map((r) => r.electrodes)).toEqual([['FP1'], ['CZ']]);
    await expect(running).rejects.toMatchObject({ name: 'AbortError' });
    runs[0]?.done({ FP1: 1 });
    runs[0]?.fail(new Error('late'));
    expect(measured).toEqual([]);
    expect(queue.measuring()).toBe(true);
    runs[1]?.done({ CZ: 2 });
    await expect(next).resolves.toEqual({ CZ: 2 });
    expect(measured).toEqual([{ CZ: 2 }]);
  });

  it('a signal aborted before the call is refused without queueing (in words when its reason is no error)', async () => {
    const { queue, runs } = setup();
    await expect(queue.submit(list('FP1'), { signal: AbortSignal.abort('gone') })).rejects.toThrow(
      'The impedance measurement was aborted.',
    );
    expect(runs).toHaveLength(0);
    expect(queue.measuring()).toBe(false);
  });

  it('reports whose measurement runs, then whose comes next', async () => {
    const { queue, runs } = setup();
    expect(queue.holder()).toBeUndefined();
    const first = queue.submit(list('FP1'), { holder: 'impedance session A' });
    const second = queue.submit(list('FP1'), { holder: 'impedance session B' });
    expect(queue.holder()).toBe('impedance session A');
    runs[0]?.done({ FP1: 1 });
    await first;
    expect(queue.holder()).toBe('impedance session B');
    runs[1]?.done({ FP1: 1 });
    await second;
    expect(queue.holder()).toBeUndefined();
  });

  it('a failed measurement rejects its request and the next one runs', async () => {
    const { queue, runs, measured } = setup();
    const failing = queue.submit(list('FP1'));
    const next = queue.submit(list('CZ'));
    runs[0]?.fail(new Error('the amplifier did not answer'));
    await expect(failing).rejects.toThrow('the amplifier did not answer');
    expect(measured).toEqual([]);
    runs[1]?.done({ CZ: 3 });
    await expect(next).resolves.toEqual({ CZ: 3 });
  });

  it('is refused while EEG acquisition runs, naming who holds it', async () => {
    const { queue, runs, owners } = setup();
    owners.push('streams');
    await expect(queue.submit(list('FP1'))).rejects.toMatchObject({
      code: 'device_busy',
      details: { heldBy: { activity: 'eeg_acquisition', owners: ['streams'] } },
    });
    expect(runs).toHaveLength(0);
    expect(queue.measuring()).toBe(false);
  });

  it('rejects what the electrode list throws before any other check', async () => {
    const { queue, owners } = setup();
    owners.push('client');
    await expect(
      queue.submit(() => {
        throw new Error('no such electrode');
      }),
    ).rejects.toThrow('no such electrode');
  });

  it('close fails the running and the waiting requests and refuses new ones', async () => {
    const { queue, runs } = setup();
    const running = queue.submit(list('FP1'));
    const waiting = queue.submit(list('CZ'));
    queue.close();
    expect(runs[0]?.stopped).toBe(true);
    expect(queue.measuring()).toBe(false);
    await expect(running).rejects.toMatchObject({ code: 'device_unavailable' });
    await expect(waiting).rejects.toMatchObject({ code: 'device_unavailable' });
    runs[0]?.done({ FP1: 1 });
    await settle();
    expect(runs).toHaveLength(1);
    await expect(queue.submit(list('FP1'))).rejects.toMatchObject({
      code: 'device_unavailable',
      message: 'The device is closed.',
    });
  });
});

/**
 * The LSL device's driver (src/device/lsl/) against real liblsl outlets (1.12 in every checkout;
 * 1.16.2 where HEADSETD_ORACLES is set, else its tests skip saying how to enable them), published
 * by test/lsl/lsltool.c with channel labels and units in their description: exact values out of
 * the driver, in order, each column under its own label; time stamps mapped from the outlet's own stamps; samples skipped by the outlet
 * reported as lost rows, never filled; the outlet closed, killed and restarted: lost, restored and
 * a discontinuity, with no sample duplicated or invented; no stream, or one it cannot play: a
 * clear error. Everything stays on loopback, on the ports each version's file gives (one file per
 * version, lsl-device-1.12.test.ts and lsl-device-1.16.test.ts, so that the two run side by side).
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { LiveLinkEvent, LiveSamples } from '../../src/device/live/driver.js';
import { createLslDriver, type LslDriver } from '../../src/device/lsl/index.js';
import { lslToUnixMs } from '../../src/lsl/clock.js';
import { LOOPBACK_NETWORK } from '../../src/lsl/network.js';
import {
  type LiblslVersion,
  liblslEnv,
  liblslMissing,
  liblslOf,
  LslTool,
  skipWithout,
} from '../support/liblsl.js';
import { eventually } from '../support/wait.js';

const RATE = 250;
/** liblsl's channel format numbers. */
const FLOAT32 = 1;
const INT16 = 5;

/** What a driver delivered, as it came. */
class Collector {
  readonly blocks: LiveSamples[] = [];
  readonly events: LiveLinkEvent[] = [];
  /** Each event's index in `blocks` when it came: the block after it is `blocks[at]`. */
  readonly eventAt: number[] = [];

  constructor(driver: LslDriver) {
    driver.onSamples((block) => this.blocks.push(block));
    driver.onLink((event) => {
      this.events.push(event);
      this.eventAt.push(this.blocks.length);
    });
  }

  rows(): number {
    return this.blocks.reduce((sum, block) => sum + block.rows, 0);
  }

  /** Every row's values, in order. */
  values(columns: number): number[][] {
    return this.blocks.flatMap((block) =>
      Array.from({ length: block.rows }, (_, r) =>
        Array.from(block.data.subarray(r * columns, (r + 1) * columns)),
      ),
    );
  }
}

/**
 * The suite for one liblsl version, on its own LSL ports (`basePort` and the 16 after it,
 * `basePort - 1` for multicast).
 */
export function lslDeviceSuite(version: LiblslVersion, basePort: number): void {
  const PORTS = { multicastPort: basePort - 1, basePort, portRange: 16 };
  const NETWORK = { ...LOOPBACK_NETWORK, ...PORTS };
  describe(`the LSL device reads liblsl ${version} outlets`, () => {
    let lib: { lib: string; tool: string };
    const tools: LslTool[] = [];
    const drivers: LslDriver[] = [];
    const env = () => liblslEnv(PORTS);

    beforeAll(async () => {
      if (liblslMissing(version) === undefined) lib = await liblslOf(version);
    }, 240_000);

    afterEach(async () => {
      for (const driver of drivers.splice(0)) await driver.close();
      for (const tool of tools.splice(0)) tool.kill();
    });

    afterAll(async () => {
      for (const tool of tools) tool.kill();
    });

    /** An outlet of lsltool's `eeg` command (see lsltool.c), its stdin open for the rounds. */
    function outlet(args: {
      name: string;
      source?: string;
      format?: number;
      channels: number;
      rate?: number;
      count: number;
      rounds?: number;
      first?: number;
      skip?: readonly number[];
      labels?: string;
      type?: string;
    }): LslTool {
      const tool = new LslTool(
        lib.tool,
        [
          lib.lib,
          'eeg',
          args.name,
          args.type ?? 'EEG',
          args.source ?? '-',
          String(args.format ?? FLOAT32),
          String(args.channels),
          String(args.rate ?? RATE),
          String(args.count),
          String(args.rounds ?? 1),
          args.skip === undefined || args.skip.length === 0 ? '-' : args.skip.join(','),
          args.labels ?? '-',
          String(args.first ?? 0),
        ],
        env(),
        true,
      );
      tools.push(tool);
      return tool;
    }

    /** What the drivers logged. */
    const logs: string[] = [];

    function driver(argument: string): { driver: LslDriver; got: Collector } {
      const d = createLslDriver(argument, { network: NETWORK, log: (message) => logs.push(message) });
      drivers.push(d);
      return { driver: d, got: new Collector(d) };
    }

    test('exact values in order, each column under its own name, stamps mapped, skipped samples lost and never filled', async (context) => {
      skipWithout(version, context);
      const name = `LslDevice Values ${version}`;
      const count = 500;
      const skip = [100, 101, 102, 300];
      const labels = ['Fp1:microvolts', 'T7:uV', 'AUX1:g', 'Cz:mV', 'P8'];
      const tool = outlet({
        name,
        source: `values-${version}`,
        channels: 5,
        count,
        skip,
        labels: labels.join(','),
      });
      await tool.waitFor('READY');
      const { driver: d, got } = driver(`name=${name}`);
      await d.open();
      expect(d.sampleRate()).toBe(RATE);
      // Every channel under its own name: nothing renamed to the headset's montage.
      expect(d.channels().map((c) => [c.label, c.name, c.type, c.unit])).toEqual([
        ['Fp1', 'Fp1', 'EEG', undefined],
        ['T7', 'T7', 'EEG', undefined],
        ['AUX1', 'AUX1', 'AUX', 'g'],
        ['Cz', 'Cz', 'EEG', undefined],
        ['P8', 'P8', 'EEG', undefined],
      ]);
      const info = d.info();
      expect(info.kind).toBe('lsl');
      expect(info.serial).toBe(`values-${version}`);
      expect(info.source).toContain(`LSL stream '${name}' (type EEG, source id values-${version})`);
      expect(info.source).not.toContain('not played');
      // The accelerometer axis in g is played as it is, in g (its values unscaled).
      expect(d.channels()[2]?.reason).toBeUndefined();
      await d.start();
      const start = Number((await tool.waitFor('START 0 ')).split(' ')[2]);
      await tool.waitFor('SENT 0');
      const sent = Array.from({ length: count }, (_, i) => i).filter((i) => !skip.includes(i));
      await eventually(() => got.rows() === sent.length, 20_000, 'every sample the outlet sent');

      // Values: the outlet's float32, scaled to µV by each channel's unit (Cz in mV).
      const scales = [1, 1, 1, 1000, 1];
      expect(got.values(5)).toEqual(
        sent.map((i) => scales.map((scale, c) => Math.fround(Math.fround(i * 5 + c + 0.25) * scale))),
      );
      // Blocks split at the skipped samples: lost rows counted, the block after them discontinuous.
      let row = 0;
      const correction = d.status().clockOffsetMs / 1000;
      expect(Math.abs(correction)).toBeLessThan(0.001);
      for (const block of got.blocks) {
        const index = sent[row] as number;
        const previous = row === 0 ? undefined : (sent[row - 1] as number);
        const lost = previous === undefined ? 0 : index - previous - 1;
        expect([index, block.lost, block.discontinuity]).toEqual([index, lost, lost > 0]);
        // Its time: the outlet's stamp of its first row (start + index / rate), through the mapping.
        expect(Math.abs(block.timestamp - lslToUnixMs(start + index / RATE + correction))).toBeLessThan(0.5);
        row += block.rows;
      }
      expect(got.blocks.filter((b) => b.lost > 0).map((b) => b.lost)).toEqual([3, 1]);
      // Counted once, in the blocks: a link event as well would announce the rows twice.
      expect(got.events).toEqual([]);
    }, 60_000);

    test('int16 values are read exactly; a channel without a unit is µV', async (context) => {
      skipWithout(version, context);
      const name = `LslDevice Int16 ${version}`;
      const tool = outlet({ name, format: INT16, channels: 3, count: 100, labels: 'O1,O2,Pz' });
      await tool.waitFor('READY');
      const { driver: d, got } = driver(`name=${name}`);
      await d.open();
      await d.start();
      await eventually(() => got.rows() === 100, 20_000, 'the 100 samples');
      expect(got.values(3)).toEqual(Array.from({ length: 100 }, (_, i) => [0, 1, 2].map((c) => i * 3 + c)));
      // Stopping and closing twice is safe.
      await d.stop();
      await d.stop();
      await d.close();
      await d.close();
      expect(got.events).toEqual([]);
      await expect(d.start()).rejects.toThrow(/The LSL device is closed/);
    }, 60_000);

    test('a stop right after a burst delivers its last sample (held back until the outlet showed it still ran, it was dropped)', async (context) => {
      skipWithout(version, context);
      const name = `LslDevice Stop ${version}`;
      const count = 120;
      const tool = outlet({ name, source: `stop-${version}`, channels: 2, count, labels: 'C3,C4' });
      await tool.waitFor('READY 0');
      const { driver: d, got } = driver(`name=${name}`);
      await d.open();
      await d.start();
      await eventually(() => got.rows() >= count - 1, 20_000, 'the burst');
      await d.stop();
      expect(got.rows()).toBe(count);
      expect(got.values(2)).toEqual(
        Array.from({ length: count }, (_, i) => [0, 1].map((c) => Math.fround(i * 2 + c + 0.25))),
      );
      expect(d.status().closeSamplesDropped).toBe(0);
    }, 60_000);

    test('the outlet closed, then killed, then started again: lost, restored, a discontinuity, no sample duplicated or invented', async (context) => {
      skipWithout(version, context);
      const name = `LslDevice Restart ${version}`;
      const source = `restart-${version}`;
      const count = 200;
      const labels = 'C3,C4';
      const first = outlet({ name, source, channels: 2, count, rounds: 2, labels });
      // Another stream of the same program, under the same source id and of the same shape (OpenBCI
      // GUI publishes obci_eeg1, obci_eeg2, … so): it matches the query, and must never be read.
      const decoy = outlet({
        name: `${name} Decoy`,
        source,
        channels: 2,
        count,
        first: 9,
        rounds: 10,
        labels,
      });
      await Promise.all([first.waitFor('READY 0'), decoy.waitFor('READY 9')]);
      const { driver: d, got } = driver(`type=EEG&sourceId=${source}`);
      await d.open();
      expect(d.info().source).toContain(
        `of 2 streams matching type=EEG&sourceId=${source} (also: '${name} Decoy'`,
      );
      await d.start();
      await eventually(() => got.rows() === count, 20_000, 'round 0');

      // Round 0's outlet closes as a program that stops does (liblsl 1.16 then sends a sample it
      // never pushed, which must not come out); round 1 is a new outlet of the same source id.
      first.send('');
      await eventually(
        () => got.events.some((e) => e.kind === 'restored'),
        30_000,
        'restored after the close',
      );
      await eventually(() => got.rows() === 2 * count, 20_000, 'round 1');
      // Then the program is killed; another one starts the same source.
      first.kill();
      await eventually(
        () => got.events.filter((e) => e.kind === 'lost').length === 2,
        30_000,
        'lost after the kill',
      );
      const second = outlet({ name, source, channels: 2, count, rounds: 3, first: 2, labels });
      await second.waitFor('READY 2');
      await eventually(
        () => got.events.filter((e) => e.kind === 'restored').length === 2,
        30_000,
        'restored after the kill',
      );
      await eventually(() => got.rows() === 3 * count, 20_000, 'round 2');

      expect(got.events.map((e) => e.kind)).toEqual(['lost', 'restored', 'lost', 'restored']);
      expect(got.events[0]?.message).toContain(`LSL stream '${name}'`);
      expect(got.values(2)).toEqual(
        Array.from({ length: 3 * count }, (_, i) => [0, 1].map((c) => Math.fround(i * 2 + c + 0.25))),
      );
      // The first block after each restoration, and only it, is marked.
      const marked = got.blocks.flatMap((block, k) => (block.discontinuity ? [k] : []));
      expect(marked).toEqual([got.eventAt[1], got.eventAt[3]]);
      expect(got.blocks.every((block) => block.lost === 0)).toBe(true);
      // Never backwards.
      for (let k = 1; k < got.blocks.length; k++) {
        expect(got.blocks[k]?.timestamp).toBeGreaterThanOrEqual(got.blocks[k - 1]?.timestamp ?? 0);
      }
      expect(d.status().recoveries).toBe(2);
      expect(decoy.lines.some((line) => line.startsWith('START'))).toBe(false);
      // The sample left out at a close is logged as what it may be (a real one with liblsl 1.12-1.15),
      // not as one the outlet never pushed.
      const leftOut = logs.filter((line) => line.startsWith('left out'));
      expect(leftOut).toHaveLength(d.status().closeSamplesDropped);
      for (const line of leftOut) {
        expect(line).toContain('counted in closeSamplesDropped');
        expect(line).toContain('may have been a real sample');
        expect(line).not.toContain('never pushed');
      }
    }, 120_000);

    test('several streams match: the first by name is played, and the source says so', async (context) => {
      skipWithout(version, context);
      const type = `LslDevicePick${version}`;
      const b = outlet({ name: `B amp ${version}`, type, channels: 1, count: 10, labels: 'Cz' });
      const a = outlet({ name: `A amp ${version}`, type, channels: 1, count: 10, labels: 'Fz' });
      await Promise.all([a.waitFor('READY'), b.waitFor('READY')]);
      const { driver: d } = driver(`type=${type}`);
      await d.open();
      expect(d.channels().map((c) => c.name)).toEqual(['Fz']);
      expect(d.info().source).toMatch(
        new RegExp(
          `^LSL stream 'A amp ${version}' .*; the first by name, source id, host and creation time of 2 streams matching type=${type} \\(also: 'B amp ${version}' on `,
        ),
      );
    }, 60_000);

    test.for([
      ['an irregular rate', { rate: 0, labels: 'Cz' }, /has an irregular rate \(nominal_srate 0\)/],
    ] as const)('a stream with %s is refused at open, saying why', async ([what, args, message], context) => {
      skipWithout(version, context);
      const name = `LslDevice Refused ${what} ${version}`;
      const tool = outlet({ name, channels: 1, count: 1, ...args });
      await tool.waitFor('READY');
      const { driver: d } = driver(`name=${name}`);
      await expect(d.open()).rejects.toThrow(message);
    });
  });
}

/**
 * The Cyton driver against what a bad radio link and a misbehaving board send, over the board
 * emulator's hostile modes on a real pseudo-terminal pair: torn packets, packets whose data holds a
 * footer and a header, floods of garbage, a board that answers but never streams, a board plugged
 * back as another; and the time of every row on the fitted clock, with this machine's clock
 * jumping. The rule throughout: no row the board did not send whole, every loss counted.
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { Frame } from '../../src/core/frame.js';
import { microvoltsPerCount } from '../../src/device/cyton/protocol.js';
import type { LiveSamples } from '../../src/device/live/driver.js';
import { LiveHeadset } from '../../src/device/live/live-headset.js';
import { openCytonPort } from '../../src/device/cyton/link.js';
import { CytonEmulator, randomGarbage } from '../support/cyton-emulator.js';
import { checkExact, closeRigs, rig, rowsOf } from '../support/cyton-rig.js';
import { eventually } from '../support/wait.js';

afterEach(closeRigs);

describe('Cyton against hostile bytes and boards', () => {
  test('every row is on the fitted clock: each step between two rows of the frames within 0.1 % of the fitted period, across frames too (was: rows at the nominal period, frame starts on the fitted line)', async () => {
    // This machine's clock jumps back 40 ms after 0.4 s: the line slews at its limit for seconds.
    const start = Date.now();
    const now = (): number => Date.now() - (Date.now() - start > 400 ? 40 : 0);
    const r = await rig({ driver: { now } });
    const headset = new LiveHeadset(r.driver);
    const frames: Frame[] = [];
    headset.eeg.onFrame((f) => frames.push(f));
    try {
      await headset.eeg.start('client');
      await eventually(() => rowsOf(r.blocks) >= 750, 20_000, '3 s of rows');
      await headset.eeg.stop('client');
    } finally {
      await headset.close();
    }
    // The fitted period of each row (channel 1 carries the row): the line is continuous, so the
    // period of a block's stretch is the step from its first row's time to the next block's,
    // over the rows between them.
    const scale = microvoltsPerCount(24);
    const firstRow = (b: LiveSamples): number => Math.round((b.data[0] as number) / scale);
    const period = new Map<number, number>();
    const periods: number[] = [];
    for (let k = 0; k + 1 < r.blocks.length; k++) {
      const b = r.blocks[k] as LiveSamples;
      const next = r.blocks[k + 1] as LiveSamples;
      if (next.discontinuity) continue;
      const fitted = (next.timestamp - b.timestamp) / (firstRow(next) - firstRow(b));
      periods.push(fitted);
      for (let i = 0; i < b.rows; i++) period.set(firstRow(b) + i, fitted);
    }
    // Each row's time in the frames: timestamp + i × 1000 / rate; the row by its Fp1 value.
    const rows: { row: number; time: number }[] = [];
    for (const f of frames) {
      const width = f.channels.length;
      for (let i = 0; i < f.data.length / width; i++) {
        rows.push({
          row: Math.round((f.data[i * width] as number) / scale),
          time: f.timestamp + (i * 1000) / f.sampleRate,
        });
      }
    }
    // The clock did slew (else this test proves nothing): its period moved off the nominal.
    expect(Math.max(...periods.map((p) => Math.abs(p - 4) / 4))).toBeGreaterThan(1e-4);
    let worst = 0;
    for (let k = 1; k < rows.length; k++) {
      const a = rows[k - 1] as { row: number; time: number };
      const b = rows[k] as { row: number; time: number };
      if (b.row !== a.row + 1) continue;
      const fitted = period.get(b.row);
      if (fitted === undefined) continue;
      worst = Math.max(worst, Math.abs(b.time - a.time - fitted) / fitted);
    }
    expect(worst).toBeLessThanOrEqual(1e-3);
  });

  test('a torn packet is skipped, counted and lost by the counter; the real packet after it kept', async () => {
    const r = await rig();
    await r.driver.start();
    await eventually(() => rowsOf(r.blocks) >= 50, 10_000, '50 rows');
    r.emulator.tear();
    await eventually(
      () => r.blocks.some((b) => b.lost > 0) && rowsOf(r.blocks) >= 150,
      10_000,
      'rows after the torn packet',
    );
    const rows = checkExact(r.blocks, 8, 24);
    const torn = r.emulator.torn[0] as number;
    expect(rows).not.toContain(torn);
    expect(rows).toContain(torn + 1);
    expect(r.blocks.filter((b) => b.lost > 0).map((b) => b.lost)).toEqual([1]);
    expect(r.driver.stats()).toMatchObject({ tornPackets: 1, lostRows: 1 });
    expect(r.driver.stats().skippedBytes).toBeGreaterThanOrEqual(20);
  });

  test('garbage between packets: skipped and counted; the packet before it, followed by no header, is lost and counted, never guessed', async () => {
    const r = await rig();
    await r.driver.start();
    await eventually(() => rowsOf(r.blocks) >= 50, 10_000, '50 rows');
    r.emulator.garbage(Uint8Array.from([0x00, 0xa0, 0x42, 0xc0, 0xff, 0x13]));
    await eventually(
      () => r.blocks.some((b) => b.lost > 0) && rowsOf(r.blocks) >= 150,
      10_000,
      'rows after the garbage',
    );
    checkExact(r.blocks, 8, 24);
    expect(r.blocks.filter((b) => b.lost > 0).map((b) => b.lost)).toEqual([1]);
    expect(r.driver.stats().skippedBytes).toBeGreaterThanOrEqual(6 + 33);
  });

  test('torn packets followed by packets whose data holds C0 A0: never a row mixing two packets, the real next packet kept (was: every splice recorded, the real packet dropped)', async () => {
    const r = await rig({ emulator: { hostileData: true } });
    await r.driver.start();
    for (let tear = 0; tear < 20; tear++) {
      const before = rowsOf(r.blocks);
      await eventually(() => rowsOf(r.blocks) >= before + 10, 10_000, `rows before tear ${tear + 1}`);
      r.emulator.tear();
    }
    const last = r.emulator.torn.at(-1) as number;
    await eventually(
      () => checkExact(r.blocks, 8, 24, true).some((row) => row > last + 5),
      10_000,
      'rows after the last tear',
    );
    await r.driver.stop();
    // Every row is one the board sent whole (channel 1 names it, every other channel matches it).
    const rows = checkExact(r.blocks, 8, 24, true);
    expect(rows).toEqual([...new Set(rows)].sort((a, b) => a - b));
    for (const torn of r.emulator.torn) {
      expect(rows).not.toContain(torn);
      expect(rows, `the packet after torn packet ${torn}`).toContain(torn + 1);
    }
    // Lost rows: exactly those missing, as the counter says; each torn packet counted.
    const lost = r.blocks.reduce((n, b) => n + b.lost, 0);
    expect(lost).toBe((rows.at(-1) as number) - (rows[0] as number) + 1 - rows.length);
    expect(r.driver.stats().tornPackets).toBe(20);
  });

  test('a flood of random garbage rich in headers and footers while streaming (1 MiB in 16 bursts): no row the board did not send, each burst one gap, counted', async () => {
    const r = await rig();
    await r.driver.start();
    let skipped = 0;
    for (let burst = 0; burst < 16; burst++) {
      const before = rowsOf(r.blocks);
      await eventually(() => rowsOf(r.blocks) >= before + 20, 10_000, `rows before burst ${burst + 1}`);
      const garbage = randomGarbage(64 * 1024, burst + 1, true);
      skipped += garbage.length;
      r.emulator.garbage(garbage);
    }
    const mark = rowsOf(r.blocks);
    await eventually(() => rowsOf(r.blocks) >= mark + 20, 10_000, 'rows after the flood');
    await r.driver.stop();
    const rows = checkExact(r.blocks, 8, 24);
    expect(rows).toEqual([...new Set(rows)].sort((a, b) => a - b));
    const gaps = r.blocks.filter((b) => b.lost > 0);
    // One gap per burst at most (the packet before it and those sent while it was read).
    expect(gaps.length).toBeLessThanOrEqual(16);
    expect(r.blocks.filter((b) => b.discontinuity && b.lost === 0).length).toBeLessThanOrEqual(1);
    expect(r.driver.stats().skippedBytes).toBeGreaterThanOrEqual(skipped);
  });

  test('a board that answers every command but sends no sample after start is lost until it sends (was: restored at each answered reset, healthy most of the time)', async () => {
    const r = await rig({ emulator: { mute: true }, driver: { stallTimeoutMs: 600 } });
    await r.driver.start();
    await eventually(() => r.events.some((e) => e.kind === 'lost'), 10_000, 'lost');
    const resets = r.emulator.commands.filter((c) => c === 'v').length;
    // Several resets answered, each followed by a start command the board ignores.
    await eventually(
      () => r.emulator.commands.filter((c) => c === 'v').length >= resets + 3,
      20_000,
      'three more resets',
    );
    expect(r.events.map((e) => e.kind).every((k) => k === 'lost')).toBe(true);
    expect(r.events.at(-1)?.message).toMatch(/answers its reset but sends no sample after the start command/);
    expect(rowsOf(r.blocks)).toBe(0);
    r.emulator.mute = false;
    await eventually(() => r.events.some((e) => e.kind === 'restored'), 10_000, 'restored');
    expect(r.events.at(-1)?.message).toMatch(/answers again and sends samples/);
    const mark = r.eventAt.at(-1) as number;
    await eventually(() => rowsOf(r.blocks.slice(mark)) >= 30, 10_000, 'rows after');
    checkExact(r.blocks, 8, 24);
  });

  test('a board plugged back that claims a Daisy (headsetd started without): lost, naming the Daisy (was: "serial port is gone"); the first board back: restored', async () => {
    const r = await rig();
    await r.driver.start();
    await eventually(() => rowsOf(r.blocks) >= 30, 10_000, '30 rows');
    r.emulator.stop();
    await r.pair.kill();
    await eventually(() => r.events.some((e) => e.kind === 'lost'), 10_000, 'the lost event');
    await r.boardLink.close();
    await r.pair.restart();
    r.boardLink = await openCytonPort(r.pair.board);
    r.emulator = new CytonEmulator(r.boardLink, { daisy: true });
    await eventually(() => r.events.some((e) => /Daisy/.test(e.message)), 10_000, 'the Daisy named');
    expect(r.events.map((e) => e.kind)).toEqual(['lost', 'lost']);
    expect(r.events[1]?.message).toMatch(
      new RegExp(
        `^The board on ${r.pair.host} now claims a Daisy module .*started with 8 channels at 250 Hz`,
      ),
    );
    // The board it started with, back on the path.
    r.emulator.stop();
    await r.pair.kill();
    await r.boardLink.close();
    await r.pair.restart();
    r.boardLink = await openCytonPort(r.pair.board);
    r.emulator = new CytonEmulator(r.boardLink);
    await eventually(() => r.events.some((e) => e.kind === 'restored'), 10_000, 'restored');
    const mark = r.eventAt.at(-1) as number;
    await eventually(() => rowsOf(r.blocks.slice(mark)) >= 30, 10_000, 'rows after');
    checkExact(r.blocks, 8, 24);
  });
});

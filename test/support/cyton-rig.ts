/**
 * The Cyton driver on the board emulator over a real pseudo-terminal pair (socat) and the real
 * serial link (platform/serial), for the device tests (test/devices/cyton*.test.ts): `rig()` opens one,
 * `closeRigs()` (after each test) closes them all; `checkExact` checks every value of the blocks
 * against the emulator's signal.
 */
import { expect } from 'vitest';
import {
  type CytonDriver,
  type CytonDriverOptions,
  createCytonDriver,
} from '../../src/device/cyton/index.js';
import type { SerialLink } from '../../src/device/cyton/link.js';
import { microvoltsPerCount } from '../../src/device/cyton/protocol.js';
import type { LiveLinkEvent, LiveSamples } from '../../src/device/live/driver.js';
import { openCytonPort } from '../../src/device/cyton/link.js';
import { CytonEmulator, type CytonEmulatorOptions, emulatorCounts } from './cyton-emulator.js';
import { type PtyPair, ptyPair } from './pty-pair.js';

export interface Rig {
  pair: PtyPair;
  boardLink: SerialLink;
  emulator: CytonEmulator;
  driver: CytonDriver;
  blocks: LiveSamples[];
  events: LiveLinkEvent[];
  /** How many blocks had arrived when each event came. */
  eventAt: number[];
}

const rigs: Rig[] = [];

/** A port whose end is never reported (as a loaded machine sometimes fails to report a pty's). */
async function openWithoutCloses(path: string): Promise<SerialLink> {
  const link = await openCytonPort(path);
  return {
    write: (bytes) => link.write(bytes),
    onData: (listener) => link.onData(listener),
    onClose: () => () => undefined,
    close: () => link.close(),
  };
}

export async function rig(
  options: {
    daisy?: boolean;
    argument?: string;
    driver?: CytonDriverOptions;
    closeUnreported?: boolean;
    emulator?: CytonEmulatorOptions;
  } = {},
): Promise<Rig> {
  const pair = await ptyPair();
  const boardLink = await openCytonPort(pair.board);
  const emulator = new CytonEmulator(boardLink, { daisy: options.daisy ?? false, ...options.emulator });
  const opener = options.closeUnreported === true ? openWithoutCloses : openCytonPort;
  const driver = createCytonDriver(`cyton:${pair.host}${options.argument ?? ''}`, opener, {
    reopenIntervalMs: 200,
    impedanceSettleMs: 100,
    impedanceWindowMs: 600,
    ...options.driver,
  });
  const r: Rig = { pair, boardLink, emulator, driver, blocks: [], events: [], eventAt: [] };
  rigs.push(r);
  driver.onSamples((s) => r.blocks.push(s));
  driver.onLink((e) => {
    r.events.push(e);
    r.eventAt.push(r.blocks.length);
  });
  await driver.open();
  return r;
}

/** Closes every rig opened (call after each test). */
export async function closeRigs(): Promise<void> {
  for (const r of rigs.splice(0)) {
    await r.driver.close();
    r.emulator.stop();
    await r.boardLink.close();
    await r.pair.kill();
  }
}

export const rowsOf = (blocks: LiveSamples[]): number => blocks.reduce((n, b) => n + b.rows, 0);

/**
 * Checks every value of every block against the emulator's signal at `gain`, and answers the row
 * numbers the blocks held (channel 1 carries the row number).
 */
export function checkExact(blocks: LiveSamples[], channels: number, gain: number, hostile = false): number[] {
  const scale = microvoltsPerCount(gain);
  const rows: number[] = [];
  for (const block of blocks) {
    for (let r = 0; r < block.rows; r++) {
      const row = Math.round((block.data[r * channels] as number) / scale);
      rows.push(row);
      for (let c = 0; c < channels; c++) {
        expect(block.data[r * channels + c], `row ${row} channel ${c + 1}`).toBe(
          Math.fround(emulatorCounts(row, c, hostile) * scale),
        );
      }
    }
  }
  return rows;
}

/**
 * The data guarantee on an OpenBCI Cyton and a Cyton with Daisy (the board emulator on a socat
 * pseudo-terminal pair; test/support/device-guarantee.ts): every output of eeg-source holds the
 * rows the board sent, each value its counts × the µV per count at gain 24 exactly, two railed
 * inputs (the most negative and the largest code) included and never clipped, each row one fitted
 * sample period after the last (within 0.1 %).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { SerialLink } from '../../src/device/cyton/link.js';
import { MOST_NEGATIVE_COUNTS, microvoltsPerCount } from '../../src/device/cyton/protocol.js';
import { openCytonPort } from '../../src/device/cyton/link.js';
import { CytonEmulator, emulatorCounts } from '../support/cyton-emulator.js';
import { runGuarantee } from '../support/device-guarantee.js';
import { liblslOf, liblslVersions } from '../support/liblsl.js';
import { type PtyPair, ptyPair } from '../support/pty-pair.js';
import { type Service, startService, tempDataDir } from '../support/service.js';

const SCALE = microvoltsPerCount(24);
const RAILED: ReadonlyMap<number, number> = new Map([
  [2, MOST_NEGATIVE_COUNTS],
  [5, 2 ** 23 - 1],
]);

describe.for([
  { daisy: false, ports: { multicastPort: 28651, basePort: 28652, portRange: 16 } },
  { daisy: true, ports: { multicastPort: 28671, basePort: 28672, portRange: 16 } },
])('the data guarantee on a Cyton (Daisy: $daisy)', ({ daisy, ports }) => {
  let pair: PtyPair | undefined;
  let boardLink: SerialLink | undefined;
  let service: Service | undefined;

  beforeAll(async () => {
    pair = await ptyPair();
    boardLink = await openCytonPort(pair.board);
    const emulator = new CytonEmulator(boardLink, { daisy });
    for (const [channel, counts] of RAILED) emulator.rail(channel, counts);
    const dataDir = tempDataDir();
    service = await startService({ dataDir, lsl: ports, args: ['--device', `cyton:${pair.host}`] });
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    await boardLink?.close();
    await pair?.kill();
  });

  test('every row the board sent, railed inputs unclipped, through BDF+, EDF+, CSV, websocket and LSL', async () => {
    if (service === undefined) throw new Error('the service did not start');
    const [version] = liblslVersions();
    const liblsl = version === undefined ? undefined : { ...(await liblslOf(version)), ports };
    const delivered = await runGuarantee({
      service,
      streamId: daisy ? '9d4c3b2a-1f0e-4d8c-8b7a-6f5e4d3c2b1a' : '8c3b2a1f-0e9d-4c7b-9a6f-5e4d3c2b1a09',
      name: daisy ? 'guarantee-daisy' : 'guarantee-cyton',
      rows: daisy ? 250 : 500,
      ...(liblsl === undefined ? {} : { liblsl }),
    });
    expect(delivered.rate).toBe(daisy ? 125 : 250);
    expect(delivered.channels).toHaveLength(daisy ? 16 : 8);
    // Channel 1 carries the emulator's row number: every row follows the last, none invented or lost.
    const first = Math.round((delivered.rows[0]?.[0] ?? 0) / SCALE);
    delivered.rows.forEach((row, i) => {
      const counts = row.map((_, c) => RAILED.get(c) ?? emulatorCounts(first + i, c));
      expect(row).toEqual(counts.map((n) => Math.fround(n * SCALE)));
    });
    // Each row one fitted period after the last: the steps agree within 0.1 % (and the CSV's µs).
    const steps = delivered.times.slice(1).map((t, i) => t - (delivered.times[i] as number));
    const median = [...steps].sort((a, b) => a - b)[Math.floor(steps.length / 2)] as number;
    expect(Math.abs(median - 1000 / delivered.rate)).toBeLessThan((0.01 * 1000) / delivered.rate);
    for (const step of steps) expect(Math.abs(step - median)).toBeLessThanOrEqual(0.001 * median + 0.002);
  }, 120_000);
});

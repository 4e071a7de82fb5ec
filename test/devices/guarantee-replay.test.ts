/**
 * The data guarantee on the replay device (test/support/device-guarantee.ts): a recording with a
 * sine, two railed channels (at the file's digital maximum and minimum) and an EOG the headset does
 * not play goes through every output of eeg-source; the rows are the file's samples from its
 * start, in order, each value the file's own.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { runGuarantee } from '../support/device-guarantee.js';
import { liblslOf, liblslVersions } from '../support/liblsl.js';
import { json, type Service, startService, tempDataDir } from '../support/service.js';
import { writeTestEdf } from '../support/write-edf.js';

const PORTS = { multicastPort: 28631, basePort: 28632, portRange: 16 };
const RATE = 250;
/** The file's values: 0.1 µV steps, as its 16-bit digital range over ±3276.8 µV gives. */
const SOURCE: Record<string, (k: number) => number> = {
  Fp1: (k) => Math.round(500 * Math.sin((2 * Math.PI * 10 * k) / RATE)) / 10,
  Cz: () => 3276.7,
  O1: () => -3276.8,
  Pz: (k) => ((k % 97) - 48) / 10,
};
let service: Service;

beforeAll(async () => {
  const dataDir = tempDataDir();
  const file = writeTestEdf(
    dataDir,
    'railed.edf',
    [
      ...Object.entries(SOURCE).map(([label, value]) => ({
        label: `EEG ${label}`,
        samplesPerRecord: RATE,
        value,
      })),
      { label: 'EOG left', samplesPerRecord: RATE, value: () => 1 },
    ],
    { records: 8 },
  );
  service = await startService({ dataDir, lsl: PORTS, args: ['--device', `replay:${file}`] });
}, 240_000);

afterAll(async () => {
  await service.stop();
});

test('replay: every sample of the file, railed channels included, through BDF+, EDF+, CSV, websocket and LSL', async () => {
  const status = (await json(`${service.url}/system/status`)).body.status;
  expect(status.channels.played.map((c: { name: string }) => c.name)).toEqual(['Pz', 'O1', 'Cz', 'Fp1']);
  expect(status.channels.unplayed).toEqual([{ name: 'EOG left', reason: expect.any(String) }]);
  const [version] = liblslVersions();
  const liblsl = version === undefined ? undefined : { ...(await liblslOf(version)), ports: PORTS };
  const delivered = await runGuarantee({
    service,
    streamId: '7b2a1f3e-5d4c-4b6a-9f8e-2a3b4c5d6e7f',
    name: 'guarantee-replay',
    rows: 500,
    ...(liblsl === undefined ? {} : { liblsl }),
  });
  expect(delivered.rate).toBe(RATE);
  expect(delivered.channels).toEqual(['Pz', 'O1', 'Cz', 'Fp1']);
  const length = 8 * RATE;
  delivered.rows.forEach((row, i) => {
    delivered.channels.forEach((name, c) => {
      const expected = Math.fround((SOURCE[name] as (k: number) => number)(i % length));
      expect(Math.abs((row[c] as number) - expected), `${name} row ${i}`).toBeLessThan(1e-3);
    });
  });
  delivered.times.forEach((time, i) => {
    if (i > 0) expect(time - (delivered.times[i - 1] as number)).toBeCloseTo(4, 2);
  });
}, 120_000);

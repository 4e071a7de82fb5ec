/**
 * The 10-05 sites table (src/core/sites-1005-table.ts) against MNE-Python itself: the same site
 * names as MNE's `standard_1005` montage, each at the place scripts/sites-1005.py's projection of
 * MNE's positions gives, so a device channel named for a 10-05 site is placed where MNE places it.
 */
import { runPythonScript } from '../support/python.js';
import path from 'node:path';
import { expect, test } from 'vitest';
import { SITES_1005 } from '../../src/core/sites-1005-table.js';
import { sitePosition } from '../../src/core/sites-1005.js';

const SCRIPT = path.resolve(import.meta.dirname, '../../scripts/sites-1005.py');

test("every 10-05 site of MNE's standard_1005 montage, projected as the generator does, is in the table", async () => {
  const run = await runPythonScript(
    `import json, runpy; m = runpy.run_path(${JSON.stringify(SCRIPT)}); print(json.dumps(m["projected"]()))`,
  );
  expect(run.stderr).toBe('');
  const mne = JSON.parse(run.stdout) as Record<string, [number, number]>;
  expect(Object.keys(SITES_1005)).toEqual(Object.keys(mne));
  expect(Object.keys(mne)).toHaveLength(343);
  for (const [name, [x, y]] of Object.entries(mne)) {
    expect(SITES_1005[name]).toEqual([x, y]);
  }
});

test('a site is found in any case; the 10-20 equator lies at 0.8 of the head radius, Cz near the centre', () => {
  expect(sitePosition('fcz')).toEqual(sitePosition('FCz'));
  expect(sitePosition('EXG Channel 1')).toBeUndefined();
  for (const site of ['Fpz', 'T7', 'T8']) {
    const p = sitePosition(site);
    expect(Math.hypot(p?.x ?? 0, p?.y ?? 0)).toBeCloseTo(0.8, 1);
  }
  const cz = sitePosition('Cz');
  expect(Math.hypot(cz?.x ?? 1, cz?.y ?? 1)).toBeLessThan(0.05);
  // Left is left, the nose is up.
  expect(sitePosition('C3')?.x).toBeLessThan(0);
  expect(sitePosition('Fz')?.y).toBeGreaterThan(0);
});

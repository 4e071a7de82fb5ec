/**
 * `ssvep_algo`, the maker's name, is the `ssvep` built-in: `{}` (as the maker's SDK README writes
 * it) is a valid config with the documented defaults, and both names run the one implementation.
 */
import { expect, test } from 'vitest';
import { createAjv } from '../../platform/schemas/validator.js';
import { builtinByName } from './builtins.js';
import { loadBuiltinFactory } from './factories.js';
import { createSsvep } from './ssvep.js';
import { DEFAULT_SSVEP_FREQUENCIES, ssvepDefaults } from './ssvep-descriptor.js';

test('ssvep_algo takes {} and the same config as ssvep, and runs the same factory', async () => {
  const ajv = createAjv();
  for (const name of ['ssvep', 'ssvep_algo']) {
    const descriptor = builtinByName(name);
    expect(descriptor?.role).toBe('processor');
    const validate = ajv.compile(descriptor?.configSchema ?? {});
    expect(validate({})).toBe(true);
    expect(descriptor?.check?.({}, {})).toEqual([]);
    expect(validate({ frequencies: [8.57, 12], method: 'fbcca', subBands: 3, window: 3, step: 0.25 })).toBe(
      true,
    );
    expect(validate({ method: 'pca' })).toBe(false);
    expect(await loadBuiltinFactory(name)).toBe(createSsvep);
  }
  expect(ssvepDefaults({})).toEqual({
    frequencies: [...DEFAULT_SSVEP_FREQUENCIES],
    harmonics: 3,
    window: 4,
    step: 0.5,
    method: 'cca',
    subBands: 5,
    threshold: 0.2,
    margin: 0.05,
    consecutive: 3,
  });
});

test('checks across fields point at the field at fault', () => {
  const check = builtinByName('ssvep')?.check;
  expect(check?.({ frequencies: [12, 15, 12] }, {})).toEqual([
    { path: '/frequencies/2', message: '12 Hz is listed twice' },
  ]);
  expect(check?.({ window: 2, step: 3 }, {})[0]?.path).toBe('/step');
  expect(check?.({ subBands: 3 }, {})[0]?.path).toBe('/subBands');
  expect(builtinByName('ssvep')?.checkAtRate?.({ frequencies: [12, 70] }, 128)).toEqual([
    {
      path: '/frequencies/1',
      message: '70 Hz is at or above the Nyquist frequency (64 Hz) of its 128 Hz input',
    },
  ]);
});

/**
 * The `headsetd` command runs the service's bundle with V8's code cache made by the build
 * (src/bundle-loader.ts, scripts/code-cache.mjs). V8 refuses a cache silently, and then every start
 * compiles the whole bundle again (40 ms of a 150 ms start): the cache the build made must be one
 * this Node accepts for the bundle the command compiles.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { expect, test } from 'vitest';
import { ROOT } from '../support/service.js';

test('the code cache the build made is accepted for the bundle, so a start does not compile it again', () => {
  const bundle = path.join(ROOT, 'dist', 'headsetd.cjs');
  const cache = `${bundle}.cache`;
  expect(existsSync(cache)).toBe(true);
  const script = new vm.Script(readFileSync(bundle, 'utf8'), {
    filename: bundle,
    cachedData: readFileSync(cache),
  });
  expect(script.cachedDataRejected).toBe(false);
});

/**
 * The `headsetd` command runs its bundles (the command's with the client, the service's) and a
 * stream's worker runs its own (dist/stream-host.cjs) with V8's code cache made by the build
 * (src/service/bundle-loader.ts, scripts/code-cache.mjs). V8 refuses a cache silently, and then
 * every start compiles the whole bundle again (40 ms of a 150 ms start of the service; each worker
 * the 630 KB worker bundle): the cache the build made must be one this Node accepts for the bundle
 * the loader compiles, and the code the service loads on first use must still load (Node 20 loses
 * a cached script's dynamic-import callback).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { afterAll, describe, expect, test } from 'vitest';
import { ROOT, type Service, startService } from '../support/service.js';

test.each(['headsetd.cjs', 'headsetd-service.cjs', 'stream-host.cjs'])(
  'the code cache the build made is accepted for %s, so a start does not compile it again',
  (name) => {
    const bundle = path.join(ROOT, 'dist', name);
    const cache = `${bundle}.cache`;
    expect(existsSync(cache)).toBe(true);
    const script = new vm.Script(readFileSync(bundle, 'utf8'), {
      filename: bundle,
      cachedData: readFileSync(cache),
    });
    expect(script.cachedDataRejected).toBe(false);
  },
);

describe('the built service with its code cache', () => {
  let service: Service | undefined;
  afterAll(async () => {
    await service?.stop();
  });

  test('loads what it imports on first use (was ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING: /docs answered 500)', async () => {
    service = await startService();
    // Swagger UI's packages: imported by the first request to /docs.
    const docs = await fetch(`${service.url}/docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toMatch(/swagger/i);
    // The PNG rasteriser: imported by the first PNG head map.
    const png = await fetch(`${service.url}/electrodes/impedance/map?format=png`);
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(
      Buffer.from(await png.arrayBuffer())
        .subarray(1, 4)
        .toString('latin1'),
    ).toBe('PNG');
  });
});

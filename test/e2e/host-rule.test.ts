/**
 * The Host rule of the real service (docs/security.md §Sockets, rule 1). Regressions:
 * - `PATCH /system/hostname {"hostname":"attacker.example"}` made that name pass the Host and
 *   Origin rules, and kept it across restarts: any client allowed to call could open the API to a
 *   DNS-rebinding site of its choosing. The name a client sets is reported, and widens nothing.
 * - A service bound to an address refused that very address as `Host` unless `--allow-host`
 *   repeated it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { hostname } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { isValidHostname } from '../../src/platform/store/settings-store.js';
import { CLI, type Service, startService } from '../support/service.js';
import { testScript } from '../support/test-scripts.js';

let service: Service | undefined;

afterEach(async () => {
  await service?.stop();
  service = undefined;
});

/** A GET to the service on 127.0.0.1 naming `host` (and `origin`, when given): its status and error code. */
function get(
  port: number,
  where: string,
  headers: Record<string, string>,
): Promise<{ status: number; code: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: where, headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      res.on('end', () => {
        const body = JSON.parse(text) as { error?: { code: string } };
        resolve({ status: res.statusCode ?? 0, code: body.error?.code });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('a host name set through the API', () => {
  test('does not pass the Host and Origin rules, before or after a restart', async () => {
    service = await startService();
    const { port, dataDir } = service;
    const set = await fetch(`${service.url}/system/hostname`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hostname: 'attacker.example' }),
    });
    expect(await set.json()).toEqual({ success: true, hostname: 'attacker.example' });
    const attempts = async () => {
      for (const name of ['attacker.example', 'attacker.example.local']) {
        const rebound = await get(port, '/system/status', {
          host: `${name}:${port}`,
          origin: `http://${name}:${port}`,
        });
        expect(rebound, name).toEqual({ status: 403, code: 'forbidden_origin' });
      }
    };
    await attempts();
    await service.stop();
    service = await startService({ dataDir });
    expect(await (await fetch(`${service.url}/system/hostname`)).json()).toMatchObject({
      hostname: 'attacker.example',
    });
    const restarted = service.port;
    for (const name of ['attacker.example', 'attacker.example.local']) {
      expect(await get(restarted, '/system/status', { host: `${name}:${restarted}` }), name).toEqual({
        status: 403,
        code: 'forbidden_origin',
      });
    }
  });

  test.skipIf(!isValidHostname(hostname()))(
    "the machine's own name and its .local name still pass",
    async () => {
      service = await startService();
      const { port } = service;
      for (const name of [hostname(), `${hostname()}.local`]) {
        expect((await get(port, '/system/status', { host: `${name}:${port}` })).status, name).toBe(200);
      }
    },
  );
});

describe('the address the service listens on', () => {
  test('is accepted as Host, in the forms a client writes it', async () => {
    // The IPv4 loopback address in IPv6 form: an address headsetd counts as beyond loopback.
    service = await startService({ args: ['--host', '::ffff:127.0.0.1'] });
    const { port } = service;
    const token = readFileSync(path.join(service.dataDir, 'token'), 'utf8').trim();
    const authorization = `Bearer ${token}`;
    for (const host of [`[::ffff:127.0.0.1]:${port}`, `[::ffff:7f00:1]:${port}`]) {
      expect((await get(port, '/system/status', { host, authorization })).status, host).toBe(200);
      expect(
        (await get(port, '/system/status', { host, authorization, origin: `http://${host}` })).status,
        host,
      ).toBe(200);
    }
    expect(await get(port, '/system/status', { host: `[::ffff:127.0.0.2]:${port}`, authorization })).toEqual({
      status: 403,
      code: 'forbidden_origin',
    });
  });

  function namespacesWork(): boolean {
    try {
      execFileSync('unshare', ['-rn', 'ip', 'link', 'set', 'lo', 'up'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  }

  test.skipIf(!namespacesWork())(
    'bound to 10.9.9.1 that address passes; bound to 0.0.0.0 every address of the machine passes, no other',
    () => {
      const setup = 'ip link set lo up && ip addr add 10.9.9.1/24 dev lo && exec "$@"';
      const probe = path.join(import.meta.dirname, 'host-rule-probe.ts');
      const output = execFileSync(
        'unshare',
        ['-rn', 'sh', '-c', setup, 'sh', process.execPath, ...testScript(probe), CLI],
        { encoding: 'utf8', timeout: 60_000 },
      );
      expect(JSON.parse(output.trim().split('\n').pop() ?? '{}')).toEqual({
        address: { bound: 200, otherAddress: 403, withoutToken: 401, dashboardWithoutToken: 200 },
        wildcard: { bound: 200, otherAddress: 403, withoutToken: 401, dashboardWithoutToken: 200 },
      });
    },
    60_000,
  );
});

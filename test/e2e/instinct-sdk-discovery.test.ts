/**
 * The maker's SDK discovery (UDP 48010, `INSTINCT_DISCOVER:<reply port>`) and its network use,
 * inside a network namespace this test creates (nothing leaves it): by default nothing listens on
 * 48010; listening beyond loopback (or `--discovery on`) answers the SDK's broadcast from the
 * device's address, `--discovery off` silences it; the SDK, which sends no token, is refused beyond
 * loopback (401) unless its network is named with `--trust-network` (and the address it calls with
 * `--allow-host`).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, test } from 'vitest';
import { testScript } from '../support/test-scripts.js';

const SETUP = [
  'ip link set lo up',
  'ip link add d0 type veth peer name d1',
  'ip addr add 10.9.9.1/24 dev d0',
  'ip link set d1 up',
  'ip link set d0 up',
  'ip route add default dev d0',
  'exec "$@"',
].join(' && ');

function namespacesWork(): boolean {
  return spawnSync('unshare', ['-rn', 'sh', '-c', SETUP, 'sh', 'true'], { timeout: 10_000 }).status === 0;
}

test.skipIf(!namespacesWork())(
  'discovery is answered only beyond loopback or when enabled; the SDK needs a trusted network beyond loopback',
  () => {
    const child = path.join(import.meta.dirname, 'instinct-discovery-child.ts');
    const output = execFileSync(
      'unshare',
      ['-rn', 'sh', '-c', SETUP, 'sh', process.execPath, ...testScript(child)],
      {
        encoding: 'utf8',
        timeout: 90_000,
      },
    );
    const report = JSON.parse(output.trim().split('\n').pop() ?? '{}') as Record<
      string,
      { found: string; sdk: string }
    >;
    // Defaults: nothing on UDP 48010, and the API not reachable from the network.
    expect(report.defaults).toEqual({ found: 'refused', sdk: 'unreachable' });
    // Beyond loopback: found; the SDK's Host (the address listened on) is accepted, and the token
    // asked.
    expect(report.beyondLoopback).toEqual({ found: '10.9.9.1', sdk: '401' });
    expect(report.untrusted).toEqual({ found: '10.9.9.1', sdk: '401' });
    expect(report.beyondLoopbackOff?.found).toBe('refused');
    expect(report.loopbackOn).toEqual({ found: '10.9.9.1', sdk: 'unreachable' });
    // A trusted network: the SDK works as it is, without a token.
    expect(report.trusted?.found).toBe('10.9.9.1');
    expect(report.trusted?.sdk).toMatch(/^ok \{"name":/);
  },
  120_000,
);

/**
 * `--trust-network` of the real service, end to end (docs/security.md §The maker's SDK on a
 * network). Regression: `--trust-network 0.0.0.0/0` (or `::/0`, `0.0.0.0/1`, `::/80`, which holds
 * every IPv4 client as `::ffff:a.b.c.d`) was accepted, a request without the token from any peer
 * was then answered 200, and the only line of the log said the token was needed. Now such a block
 * stops `serve` with a message naming the flag and the value, unless `--trust-network-any` says so,
 * which the log then warns of.
 *
 * The requests are made inside a network namespace this test creates (see
 * trust-network-child.ts); the refusals at start send nothing.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { startService } from '../support/service.js';
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

describe('headsetd serve --trust-network', () => {
  test.each(['0.0.0.0/0', '::/0', '0.0.0.0/1', '::/80'])(
    '%s is refused at start, naming the flag and the value (exit 2, before listening)',
    async (block) => {
      const started = startService({ args: ['--trust-network', block] });
      const outcome = await started.then(
        async (service) => {
          await service.stop();
          return 'listening';
        },
        (error: unknown) => (error as Error).message,
      );
      expect(outcome).toContain(
        `service exited (2) before listening: headsetd: --trust-network ${JSON.stringify(block)} covers `,
      );
      expect(outcome).toContain('--trust-network-any');
    },
  );

  test.skipIf(!namespacesWork())(
    'a tokenless request from a peer beyond loopback is served only from a network named trusted; a block covering every IPv4 client only with --trust-network-any, warned of',
    () => {
      const child = path.join(import.meta.dirname, 'trust-network-child.ts');
      const output = execFileSync(
        'unshare',
        ['-rn', 'sh', '-c', SETUP, 'sh', process.execPath, ...testScript(child)],
        { encoding: 'utf8', timeout: 90_000 },
      );
      const report = JSON.parse(output.trim().split('\n').pop() ?? '{}') as Record<
        string,
        { status: number | string; warning?: string; tokenWaived?: unknown }
      >;
      // Another network is trusted: the peer needs the token.
      expect(report.other?.status).toBe(401);
      expect(report.other?.warning).toMatch(/requests from 10\.8\.0\.0\/16 need no token/);
      // Its own network: served without it.
      expect(report.own?.status).toBe(200);
      expect(report.own?.tokenWaived).toEqual({ networks: ['10.9.9.0/24'], any: false });
      // Before, both were served 200 to this peer.
      expect(report.everyIpv4?.status).toMatch(
        /^refused at start: headsetd: --trust-network "0\.0\.0\.0\/0" covers every IPv4 address/,
      );
      expect(report.mapped?.status).toMatch(
        /^refused at start: headsetd: --trust-network "::\/80" covers every IPv4 address/,
      );
      // Said explicitly: served, and the log says loudly that anyone is.
      expect(report.mappedAny?.status).toBe(200);
      expect(report.mappedAny?.tokenWaived).toEqual({ networks: ['::/80'], any: true });
      expect(report.mappedAny?.warning).toMatch(
        /WARNING: --trust-network-any: ::\/80 covers every IPv4 address.*WITHOUT the token/,
      );
    },
    120_000,
  );
});

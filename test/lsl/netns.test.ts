/**
 * Network exposure of an LSL outlet, inside a network namespace this test creates (loopback, and a
 * veth pair whose end d0 has 10.9.9.1/24 and the default route; nothing leaves the namespace): by
 * default no discovery query from d0's network is answered, by broadcast, multicast or unicast, and
 * its data port is closed there; opened on d0 it answers broadcast and multicast queries, and a
 * liblsl 1.16 inlet finds it through broadcast only and through multicast only (where HEADSETD_ORACLES
 * sets liblsl 1.16 up; else that test skips saying how to enable it).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { expect, test } from 'vitest';
import { liblslOf, skipWithout } from '../support/liblsl.js';
import { testScript } from '../support/test-scripts.js';

function namespacesWork(): boolean {
  try {
    execFileSync('unshare', ['-rn', 'ip', 'link', 'set', 'lo', 'up'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const SETUP = [
  'ip link set lo up',
  'ip link add d0 type veth peer name d1',
  'ip addr add 10.9.9.1/24 dev d0',
  'ip link set d1 up',
  'ip link set d0 up',
  'ip route add default dev d0',
  'exec "$@"',
].join(' && ');

test.skipIf(!namespacesWork())(
  'beyond loopback only when opened on an interface: broadcast and multicast discovery there',
  async (context) => {
    skipWithout('1.16', context);
    const lib = await liblslOf('1.16');
    const probe = path.join(import.meta.dirname, 'netns-probe.ts');
    const output = execFileSync(
      'unshare',
      ['-rn', 'sh', '-c', SETUP, 'sh', process.execPath, ...testScript(probe), lib.tool, lib.lib],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(JSON.parse(output.trim().split('\n').pop() ?? '{}')).toEqual({
      hiddenBroadcast: false,
      hiddenMulticast: false,
      hiddenUnicast: false,
      hiddenTcp: false,
      openBroadcast: true,
      openMulticast: true,
      openTcp: true,
      liblslBroadcast: true,
      liblslMulticast: true,
    });
  },
  240_000,
);

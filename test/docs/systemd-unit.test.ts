/**
 * The systemd unit of examples/systemd/ (README §Running under a supervisor) stays true to the
 * service: its command line and environment are settings `headsetd serve` accepts, its data
 * directory is the one systemd creates for it, it is restarted on failure, and systemd waits longer
 * for it to stop than the service takes (5 s) before it kills what is left. Where systemd-analyze
 * exists, the unit passes `systemd-analyze verify` too.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { loadSettings } from '../../src/service/config.js';
import { ROOT } from '../support/service.js';
import { scratchDir } from '../support/scratch.js';

const UNIT = path.join(ROOT, 'examples', 'systemd', 'headsetd.service');
const text = readFileSync(UNIT, 'utf8');

/** The unit's active (uncommented) `Key=value` lines, every value of a key in order. */
function entries(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (match === null) continue;
    const [, key = '', value = ''] = match;
    out.set(key, [...(out.get(key) ?? []), value]);
  }
  return out;
}

const unit = entries();
const one = (key: string): string => unit.get(key)?.[0] ?? '';

test('its command line and environment are settings headsetd serve accepts; its data dir is its StateDirectory', () => {
  const [node, entry, command, ...args] = one('ExecStart').split(/\s+/);
  expect(node).toMatch(/^\/.*\/node$/);
  expect(entry).toMatch(/\/dist\/headsetd\.mjs$/);
  expect(command).toBe('serve');
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i += 2) flags[(args[i] ?? '').replace(/^--/, '')] = args[i + 1] ?? '';
  const env = Object.fromEntries(
    (unit.get('Environment') ?? []).map((e) => e.split('=', 2) as [string, string]),
  );
  const settings = loadSettings(flags, env);
  expect(settings.dataDir).toBe(`/var/lib/${one('StateDirectory')}`);
  expect(settings.port).toBe(42069);
});

test('restarted on failure; stopped by SIGTERM to headsetd alone, with more time than it takes', () => {
  expect(one('Restart')).toBe('on-failure');
  expect(one('KillMode')).toBe('mixed');
  expect(one('KillSignal')).toBe('SIGTERM');
  expect(Number(one('TimeoutStopSec'))).toBeGreaterThan(5);
});

const analyze = spawnSync('systemd-analyze', ['--version'], { stdio: 'ignore' }).status === 0;

test.skipIf(!analyze)('systemd-analyze verify finds nothing to say', () => {
  const dir = scratchDir('headsetd-unit');
  try {
    // The node of this machine, wherever it is: verify checks that the command exists.
    const copy = path.join(dir, 'headsetd.service');
    writeFileSync(copy, text.replace(/^ExecStart=\S+/m, `ExecStart=${process.execPath}`));
    const result = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8' });
    expect(result.stderr.trim()).toBe('');
    expect(result.status).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

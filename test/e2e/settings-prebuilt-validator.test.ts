/**
 * The service's bundle checks its settings with ajv's standalone code generated at build time
 * (scripts/bundle.mjs), not with a validator compiled at start: every refused setting must be
 * answered exactly as the run-time validator answers it (pointer, sentence, did-you-mean).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { loadSettings } from '../../src/service/config.js';
import { CLI, tempDataDir } from '../support/service.js';

function runtimeMessage(flags: Record<string, string>, configFile?: string): string {
  try {
    loadSettings(flags, {}, configFile);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the run-time check accepted the settings');
}

const dir = mkdtempSync(path.join(tmpdir(), 'headsetd-settings-'));
const misspelt = path.join(dir, 'misspelt.json');
writeFileSync(misspelt, JSON.stringify({ lsl: { sessionid: 'lab' } }));
const wrongType = path.join(dir, 'wrong-type.yaml');
writeFileSync(wrongType, 'allowedHosts: yes\nworkers: 0\n');

const CASES: { name: string; flags: Record<string, string>; config?: string }[] = [
  { name: 'a port out of range', flags: { port: '70000' } },
  { name: 'an unknown log level', flags: { 'log-level': 'loud' } },
  { name: 'a device of no known form', flags: { device: 'headphones' } },
  { name: 'a misspelt field in the settings file', flags: {}, config: misspelt },
  { name: 'fields of the wrong type and range in the settings file', flags: {}, config: wrongType },
];

test.each(CASES)('the bundle refuses $name with the run-time validator’s message', ({ flags, config }) => {
  const args = ['serve', '--data-dir', tempDataDir(), '--port', '0'];
  for (const [flag, value] of Object.entries(flags)) args.push(`--${flag}`, value);
  if (config !== undefined) args.push('--config', config);
  const run = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 20_000 });
  expect(run.status).not.toBe(0);
  const expected = runtimeMessage({ port: '0', ...flags }, config);
  // A pointer first: the schema's `/port`, or the device setting's own sentence (device/kinds.ts).
  expect(expected).toMatch(/^The settings? (at )?\//);
  expect(run.stderr.trim()).toBe(`headsetd: ${expected}`);
});

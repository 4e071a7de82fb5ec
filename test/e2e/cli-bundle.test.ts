/**
 * A client command (`headsetd streams list`, `headsetd eeg start`, ...) loads the client and
 * nothing of the service. It used to run the service's whole bundle (2.4 MB read, compiled and its
 * modules evaluated, the settings' schema and the stream validator among them) and fetch's
 * implementation for a request or two: half a second of CPU per command, a third of it now
 * (docs/performance.md §Start-up). src/cli.ts runs the client and imports the service's commands
 * (service/command.ts) only for serve, validate, token, --help and --version; the build makes each
 * side a bundle of its own (scripts/bundle.mjs). These tests keep the service out of the client's
 * side: in the sources, in the built bundle, and in a run.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { runtimeImports } from '../docs/import-graph.js';
import { ROOT } from '../support/service.js';
import { unusedPort } from '../support/ports.js';
import { scratchDir } from '../support/scratch.js';

/**
 * What src/cli.ts loads, in the build its bundle: every module it reaches but the service's
 * commands (paths below src/). Only the files reached are read.
 */
function clientSide(): string[] {
  const root = path.join(ROOT, 'src');
  const reached = new Set<string>();
  const next = ['cli.ts'];
  for (let file = next.pop(); file !== undefined; file = next.pop()) {
    if (reached.has(file) || file === 'service/command.ts') continue;
    reached.add(file);
    const source = readFileSync(path.join(root, file), 'utf8');
    for (const specifier of runtimeImports(source, file)) {
      next.push(path.posix.join(path.posix.dirname(file), specifier).replace(/\.js$/, '.ts'));
    }
  }
  return [...reached].sort();
}

test('src/cli.ts reaches the client, the vocabulary and nothing of the service before it knows the command', () => {
  // The few modules of other folders the client shares: where the service keeps its data (for the
  // token), the YAML parser's errors (apply reads a document's id), the impedance levels' names.
  const shared = new Set([
    'cli.ts',
    'service/data-dir.ts',
    'platform/schemas/yaml-text.ts',
    'guides/headmap/impedance-levels.ts',
  ]);
  const reached = clientSide();
  expect(reached).toContain('client/index.ts');
  expect(reached.filter((file) => !/^(client|core)\//.test(file) && !shared.has(file))).toEqual([]);
});

test("the command's bundle holds none of the service's code, which the service's bundle does", () => {
  const command = readFileSync(path.join(ROOT, 'dist', 'headsetd.cjs'), 'utf8');
  const service = readFileSync(path.join(ROOT, 'dist', 'headsetd-service.cjs'), 'utf8');
  // One mark of each part, by a name the bundles keep (they are minified for whitespace and syntax only).
  const marks = [
    'function runServiceCommand', // service/command.ts
    'function startServer', // service/server.ts
    'SettingsSchema', // service/config.ts, with TypeBox
    'function parseCreateDocument', // streams/stream-document.ts, with ajv
    'function createSimulatedHeadset', // device/simulated/
    'FST_ERR_', // Fastify
    'better-sqlite3', // the store
  ];
  expect(marks.filter((mark) => !service.includes(mark))).toEqual([]);
  expect(marks.filter((mark) => command.includes(mark))).toEqual([]);
});

test("a client command runs from the command's bundle alone: no service bundle, no node_modules", async () => {
  const dir = scratchDir('headsetd-client-bundle');
  for (const file of ['headsetd.mjs', 'headsetd.cjs'])
    copyFileSync(path.join(ROOT, 'dist', file), path.join(dir, file));
  // A port nothing listens on: the command gets as far as connecting, and says so.
  const port = await unusedPort();
  const url = `http://127.0.0.1:${String(port)}`;
  // An HTTP command and a WebSocket one (ws is in the bundle, loaded by the commands that open a socket).
  for (const args of [['streams', 'list'], ['events']]) {
    const run = spawnSync(process.execPath, [path.join(dir, 'headsetd.mjs'), ...args, '--url', url], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: dir },
    });
    expect({ args, status: run.status, stderr: run.stderr }).toEqual({
      args,
      status: 3,
      stderr: `headsetd: cannot reach ${url}: connection refused; is headsetd running there? (headsetd serve)\n`,
    });
  }
});

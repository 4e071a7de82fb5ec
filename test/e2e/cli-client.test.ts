/**
 * The client commands of `headsetd` against a real service (dist/headsetd.mjs on port 0): streams
 * from apply to export, recordings, events, and how failures read and exit (1 for the service's
 * refusals with its message and pointer, 2 for usage, 3 when nothing answers).
 *
 * The commands run in the test's process (test/support/client-cli.ts), but for those about the
 * program itself, started from dist/headsetd.mjs: the Ctrl-C that ends a follow, `headsetd --help`,
 * and the exit code 3 the shell sees when nothing answers.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseYaml } from '../../src/core/yaml.js';
import { followCli, runCli, spawnCli, spawnFollowCli } from '../support/client-cli.js';
import { CLI, json, type Service, startService, tempDataDir } from '../support/service.js';
import { eventually } from '../support/wait.js';
import { unusedPort } from '../support/ports.js';

let service: Service;
let withToken: Service;

beforeAll(async () => {
  // The token service's token begins with '-', as one in 64 the service makes (base64url) does:
  // `--token TOKEN` refused it as an ambiguous option value (exit 2), a failure once in 64 runs.
  const tokenDir = tempDataDir();
  writeFileSync(path.join(tokenDir, 'token'), `-${'t'.repeat(42)}\n`, { mode: 0o600 });
  [service, withToken] = await Promise.all([
    startService(),
    // Served on the IPv4-mapped loopback: not a loopback address for the service, so it requires
    // its token, while nothing listens beyond this machine.
    startService({ dataDir: tokenDir, args: ['--host', '::ffff:127.0.0.1'] }),
  ]);
});

afterAll(async () => {
  await Promise.all([service.stop(), withToken.stop()]);
});

const ID = 'c1c1c1c1-0000-4000-8000-000000000001';
const STREAM = `
id: ${ID}
meta: { name: Generator, tags: [demo] }
nodes:
  - { id: gen, executable: signal-generator, config: { sampleRate: 100, amplitudes: [1], frequencies: [5] } }
  - { id: log, executable: logger }
pipes:
  - { id: p, source: gen, destination: log }
`;

function cli(...args: string[]) {
  return runCli(['--url', service.url, ...args]);
}

function file(name: string, text: string): string {
  const target = path.join(service.dataDir, name);
  writeFileSync(target, text);
  return target;
}

describe('headsetd streams', () => {
  test('apply creates, then updates; list, get, start, status, logs and export read it back', async () => {
    const source = file('stream.yaml', STREAM);
    const created = await cli('streams', 'apply', '-f', source);
    expect(created).toMatchObject({ status: 0, stdout: `stream ${ID} created\n` });
    const updated = await cli('streams', 'apply', '-f', source, '--json');
    expect(updated.status).toBe(0);
    expect(JSON.parse(updated.stdout)).toEqual({ id: ID, action: 'updated', success: true });

    const list = await cli('streams', 'list');
    expect(list.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+STATE\s+TAGS$/);
    expect(list.stdout).toMatch(new RegExp(`${ID}\\s+Generator\\s+created\\s+demo`));
    const listed = JSON.parse((await cli('streams', 'list', '--json')).stdout);
    expect(listed.streams).toEqual([
      { id: ID, meta: expect.objectContaining({ name: 'Generator' }), state: 'created' },
    ]);

    const started = await cli('streams', 'start', ID);
    expect(started).toMatchObject({ status: 0, stdout: `stream ${ID} running\n` });
    const status = JSON.parse((await cli('streams', 'status', ID, '--json')).stdout);
    expect(status.status.state).toBe('running');
    expect(status.status.nodes.map((n: { id: string }) => n.id)).toEqual(['gen', 'log']);
    const human = await cli('streams', 'status', ID);
    expect(human.stdout).toMatch(/^state running\n/);
    expect(human.stdout).toMatch(/\nlog\s+running\s+\d+\s+0\s+0\s+0/);

    const read = JSON.parse((await cli('streams', 'get', ID, '--json')).stdout);
    expect(read.stream.nodes.map((n: { executable: string }) => n.executable)).toEqual([
      'signal-generator',
      'logger',
    ]);

    // The logger's first line, waited for on the API (a client command per poll costs 0.2 s of
    // CPU), then read once with the CLI.
    await eventually(async () => {
      const { body } = await json(`${service.url}/stream/streams/${ID}/nodes/log/logs`);
      return body.logs.some((l: { line: string }) => l.line.startsWith('in: seq=')) ? true : undefined;
    });
    const logs = await cli('streams', 'logs', ID, 'log');
    expect(logs.status).toBe(0);
    expect(logs.stdout.split('\n')[0]).toMatch(
      /^\d{4}-\d\d-\d\dT\S+Z \[event\] in: seq=\d+ samples=\d+ channels=1 sampleRate=100$/,
    );

    const exported = await cli('streams', 'export', ID);
    const definition = parseYaml(exported.stdout) as { id: string; nodes: unknown[]; pipes: unknown[] };
    expect(definition).toMatchObject({ id: ID, pipes: [{ id: 'p', source: 'gen', destination: 'log' }] });
    expect(definition.nodes).toHaveLength(2);
    const reapplied = await cli('streams', 'apply', '-f', file('exported.yaml', exported.stdout));
    expect(reapplied.stdout).toBe(`stream ${ID} updated\n`);
    const exportedJson = JSON.parse((await cli('streams', 'export', ID, '--json')).stdout);
    expect(exportedJson).toMatchObject({ id: ID, nodes: [{ id: 'gen' }, { id: 'log' }] });
    expect(exportedJson.status).toBeUndefined();

    // Follow: new lines only, as NDJSON, until Ctrl-C, which ends a follow with 0: the program,
    // sent SIGINT.
    const follow = spawnFollowCli(['--url', service.url, 'streams', 'logs', ID, '-f', '--json']);
    const first = JSON.parse(await follow.nextLine());
    let next = JSON.parse(await follow.nextLine());
    while (next.timestamp === first.timestamp && next.line === first.line)
      next = JSON.parse(await follow.nextLine());
    expect(first).toMatchObject({ node: 'log', stream: 'event', line: expect.stringMatching(/^in: seq=/) });
    expect(next.timestamp).toBeGreaterThanOrEqual(first.timestamp);
    follow.interrupt();
    expect(await follow.exited).toBe(0);
    // A reader that goes away (`| head -1`): the follow ends as by Ctrl-C, 0, with nothing on
    // stderr (it crashed on the write's EPIPE with a stack trace).
    const piped = spawn(process.execPath, [CLI, '--url', service.url, 'streams', 'logs', ID, '-f'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('HEADSETD_'))),
    });
    let pipedStderr = '';
    piped.stderr.on('data', (chunk: Buffer) => (pipedStderr += chunk.toString()));
    const pipedClosed = once(piped, 'close');
    await once(piped.stdout, 'data');
    piped.stdout.destroy();
    const [pipedCode] = await pipedClosed;
    expect({ code: pipedCode, stderr: pipedStderr }).toEqual({ code: 0, stderr: '' });

    expect((await cli('streams', 'pause', ID)).stdout).toBe(`stream ${ID} paused\n`);
    expect((await cli('streams', 'resume', ID)).stdout).toBe(`stream ${ID} running\n`);
    expect((await cli('streams', 'stop', ID)).stdout).toBe(`stream ${ID} stopped\n`);
    expect((await cli('streams', 'delete', ID)).stdout).toBe(`stream ${ID} deleted\n`);
    expect(JSON.parse((await cli('streams', 'list', '--json')).stdout).streams).toEqual([]);
    // Twenty commands one after the other: a deadline for a stuck run on a busy machine.
  }, 120_000);

  test("a refused document exits 1 with the service's message and pointer; --json prints the envelope", async () => {
    const bad = file('bad.yaml', STREAM.replace('sampleRate: 100', 'sampleRate: 0'));
    const human = await cli('streams', 'apply', '-f', bad);
    expect(human.status).toBe(1);
    expect(human.stdout).toBe('');
    expect(human.stderr).toMatch(
      /^headsetd: The stream at \/nodes\/0\/config\/sampleRate: .*\(validation_failed, HTTP 422\)\n/,
    );
    expect(human.stderr).toContain('  at /nodes/0/config/sampleRate\n');
    const scripted = await cli('streams', 'apply', '-f', bad, '--json');
    expect(scripted.status).toBe(1);
    expect(JSON.parse(scripted.stdout)).toMatchObject({
      success: false,
      error: { code: 'validation_failed', details: { path: '/nodes/0/config/sampleRate' } },
    });
    const missing = await cli('streams', 'start', 'c1c1c1c1-0000-4000-8000-00000000ffff');
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('stream_not_found, HTTP 404');
    const malformed = await cli('streams', 'apply', '-f', file('malformed.yaml', 'id: x\n  nodes: ['));
    expect(malformed.status).toBe(1);
    expect(malformed.stderr).toMatch(/line 1, column \d+/);
  });

  test('a signal impossible in the state is invalid_state, exit 1', async () => {
    await cli(
      'streams',
      'apply',
      '-f',
      file('idle.yaml', STREAM.replace(ID, 'c1c1c1c1-0000-4000-8000-000000000002')),
    );
    const result = await cli('streams', 'pause', 'c1c1c1c1-0000-4000-8000-000000000002');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('invalid_state, HTTP 409');
    await cli('streams', 'delete', 'c1c1c1c1-0000-4000-8000-000000000002');
  });
});

describe('usage and connection failures', () => {
  test('usage errors exit 2 with what is wrong and where to read the usage', async () => {
    const cases: [string[], RegExp][] = [
      [['streams', 'frob'], /unknown command 'streams frob'/],
      [['streams', 'get'], /needs ID/],
      [['streams', 'get', 'a', 'b'], /unexpected argument 'b'/],
      [['streams', 'list', '--frob'], /Unknown option '--frob'/],
      [['streams', 'apply'], /needs -f FILE/],
      [['streams', 'apply', '-f', '/nonexistent/x.yaml'], /cannot read \/nonexistent\/x\.yaml/],
      [['motors', 'move', 'O1'], /exactly one of --release N/],
      [['streams'], /Usage:/],
      // A forgotten token before another option stays a usage error.
      [['streams', 'list', '--token', '--json'], /'--token' argument is ambiguous/],
    ];
    // In parallel: each is independent of the others.
    const results = await Promise.all(cases.map(([args]) => cli(...args)));
    results.forEach((result, i) => {
      const [args, message] = cases[i] as [string[], RegExp];
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
    });
  });

  test('--help of a group and of a command exit 0 with the usage and the global options', async () => {
    const group = await runCli(['streams', '--help']);
    expect(group.status).toBe(0);
    for (const word of [
      'streams list',
      'streams apply -f FILE',
      'streams logs ID [NODE] [-f]',
      '--url',
      'Exit codes',
    ])
      expect(group.stdout).toContain(word);
    const command = await runCli(['seat', '--help']);
    expect(command.stdout).toMatch(/^Usage: headsetd seat /);
    expect(command.stdout).toContain('--strategy NAME');
    // Not a client command: the program's own help.
    const top = await spawnCli(['--help']);
    for (const word of [
      'headsetd streams list|get|apply',
      'headsetd eeg start|stop|config|watch',
      'headsetd events',
    ])
      expect(top.stdout).toContain(word);
  });

  test('nothing listening exits 3 saying so; HEADSETD_URL names the service', async () => {
    const port = await unusedPort();
    // The exit code as the shell sees it: the program, started.
    const result = await spawnCli(['--url', `http://127.0.0.1:${String(port)}`, 'streams', 'list']);
    expect(result.status).toBe(3);
    expect(result.stderr).toContain(`cannot reach http://127.0.0.1:${String(port)}: connection refused`);
    const events = await runCli(['--url', `http://127.0.0.1:${String(port)}`, 'events']);
    expect(events.status).toBe(3);
    const viaEnv = await runCli(['streams', 'list', '--json'], { env: { HEADSETD_URL: service.url } });
    expect(viaEnv.status).toBe(0);
  });
});

describe('the token', () => {
  test("is read from the service's data directory, or given with --token or HEADSETD_TOKEN", async () => {
    const token = readFileSync(path.join(withToken.dataDir, 'token'), 'utf8').trim();
    // The same socket by its IPv4 address: a Host the service accepts.
    const url = ['--url', `http://127.0.0.1:${String(withToken.port)}`];
    const none = await runCli([...url, 'streams', 'list', '--data-dir', service.dataDir]);
    expect(none.status).toBe(1);
    expect(none.stderr).toContain('authentication_required, HTTP 401');
    // Each with what the CLI printed, should it fail.
    const ok = async (run: Promise<{ status: number | null; stderr: string }>): Promise<void> => {
      const result = await run;
      expect(result.status, result.stderr).toBe(0);
    };
    await ok(runCli([...url, 'streams', 'list', '--data-dir', withToken.dataDir]));
    await ok(runCli([...url, 'streams', 'list', '--data-dir', service.dataDir, '--token', token]));
    await ok(runCli([...url, 'streams', 'list'], { env: { HEADSETD_TOKEN: token } }));
    expect((await runCli([...url, 'streams', 'list', '--token', 'wrong'])).status).toBe(1);
    // The WebSocket routes take it as well.
    const events = followCli([...url, 'events', '--json', '--data-dir', withToken.dataDir, '--count', '1']);
    await eventually(async () => (events.stderr().includes('following') ? true : undefined));
    await json(`http://127.0.0.1:${String(withToken.port)}/system/sensors/eeg/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(JSON.parse(await events.nextLine())).toMatchObject({
      type: 'system',
      eventType: 'acquisition_started',
    });
    expect(await events.exited).toBe(0);
  });
});

describe('headsetd record and recordings', () => {
  test('record start, mark and stop write a file that recordings list, download and delete', async () => {
    const started = await cli('record', 'start', '--name', 'cli-session', '--channels', 'O1,O2', '--json');
    expect(started.status).toBe(0);
    const { streamId, filename } = JSON.parse(started.stdout);
    expect(filename).toBe('cli-session.bdf');
    await eventually(async () => {
      const { body } = await json(`${service.url}/stream/streams/${streamId}/status`);
      return body.status.nodes[0].metrics.itemsProcessed > 0 ? true : undefined;
    });
    const marked = await cli('record', 'mark', 'eyes closed');
    expect(marked).toMatchObject({ status: 0, stdout: 'marked "eyes closed" in cli-session.bdf\n' });
    const stopped = await cli('record', 'stop', '--json');
    expect(stopped.status).toBe(0);
    const files = JSON.parse(stopped.stdout).recordings;
    expect(files).toEqual([
      expect.objectContaining({ name: 'cli-session.bdf', channels: ['O1', 'O2'], complete: true }),
    ]);
    expect(JSON.parse((await cli('streams', 'list', '--json')).stdout).streams).toEqual([]);
    const none = await cli('record', 'stop');
    expect(none.status).toBe(1);
    expect(none.stderr).toContain('record start');

    const list = await cli('recordings', 'list');
    expect(list.stdout).toMatch(/^NAME\s+SIZE\s+DURATION\s+RATE\s+CHANNELS\s+CREATED\s+COMPLETE\n/);
    expect(list.stdout).toMatch(/cli-session\.bdf\s+[\d.]+ KiB\s+[\d.]+ s\s+250 Hz\s+2\s+\S+\s+yes/);
    const target = path.join(service.dataDir, 'copy.bdf');
    const download = await cli('recordings', 'download', 'cli-session.bdf', '-o', target, '--json');
    expect(download.status).toBe(0);
    const bytes = readFileSync(target);
    expect(JSON.parse(download.stdout)).toEqual({
      success: true,
      name: 'cli-session.bdf',
      file: target,
      bytes: bytes.length,
    });
    expect(bytes.length).toBe(files[0].bytes);
    expect(bytes.subarray(1, 8).toString('latin1')).toBe('BIOSEMI');
    // The EDF+ annotations hold the marker.
    expect(bytes.toString('latin1')).toContain('eyes closed');
    const again = await cli('recordings', 'download', 'cli-session.bdf', '-o', target);
    expect(again.status).toBe(2);
    expect(again.stderr).toContain('--force');
    expect((await cli('recordings', 'delete', 'cli-session.bdf')).stdout).toBe(
      'recording cli-session.bdf deleted\n',
    );
    const gone = await cli('recordings', 'download', 'cli-session.bdf', '-o', '-');
    expect(gone.status).toBe(1);
    expect(gone.stderr).toContain('recording_not_found');
  });
});

describe('headsetd events', () => {
  test('prints each event as a line, or NDJSON with --json, filtered by --type', async () => {
    const human = followCli(['--url', service.url, 'events', '--type', 'system', '--count', '2']);
    const scripted = followCli([
      '--url',
      service.url,
      'events',
      '--type',
      'system',
      '--count',
      '2',
      '--json',
    ]);
    await eventually(async () =>
      human.stderr().includes('following') && scripted.stderr().includes('following') ? true : undefined,
    );
    await json(`${service.url}/system/sensors/eeg/stream`, { method: 'POST' });
    await json(`${service.url}/system/sensors/eeg/stream`, { method: 'DELETE' });
    expect(await human.nextLine()).toMatch(/^\S+Z system\s+acquisition_started: /);
    expect(await human.nextLine()).toMatch(/^\S+Z system\s+acquisition_stopped: /);
    expect(JSON.parse(await scripted.nextLine())).toMatchObject({
      type: 'system',
      eventType: 'acquisition_started',
      level: 'info',
    });
    expect(JSON.parse(await scripted.nextLine())).toMatchObject({
      type: 'system',
      eventType: 'acquisition_stopped',
    });
    expect(await human.exited).toBe(0);
    expect(await scripted.exited).toBe(0);
  });
});

/**
 * No external program outlives its stream: when a stream's worker hangs and is terminated, the
 * worker cannot stop its nodes, so the main thread kills the process groups they declared. The
 * program here ignores the end of its input and any polite request: only the group kill ends it.
 * Nor does one outlive the service: SIGTERM of `headsetd serve` kills what is left of every node's
 * group before it exits, and, where it runs in a cgroup of its own, what left the group (setsid).
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { WorkerRuntime } from '../../src/streams/runtime/worker-runtime.js';
import { STREAM_HOST } from '../support/stream-host.js';
import type { RuntimeEvent } from '../../src/streams/runtime/stream-runtime.js';
import { definition, pipe, TEST_NODES_MODULE } from '../runtime/helpers.js';
import { json, startService, tempDataDir } from '../support/service.js';
import { eventually } from '../support/wait.js';
import { scratchDir } from '../support/scratch.js';

function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

let runtime: WorkerRuntime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

test('an external node whose stream hangs is killed with its process group', async () => {
  const dataDir = scratchDir('headsetd-orphans');
  const executables = path.join(dataDir, 'executables');
  mkdirSync(executables);
  const script = path.join(executables, 'stubborn.sh');
  // Announces ready, then starts a grandchild and ignores stdin's end: a node that breaks the protocol.
  writeFileSync(
    script,
    '#!/bin/sh\nprintf \'{"type":"ready","inputs":["in"],"outputs":[]}\\n\'\nsleep 300 &\nexec sleep 300 </dev/null\n',
  );
  chmodSync(script, 0o755);

  const rt = new WorkerRuntime({
    workerEntry: STREAM_HOST,
    dataDir,
    executablesDirs: [executables],
    extraExecutableModules: [TEST_NODES_MODULE],
    heartbeatTimeoutMs: 1500,
  });
  runtime = rt;
  const events: RuntimeEvent[] = [];
  rt.onEvent((e) => events.push(e));
  const stream = definition(
    [
      {
        id: 'gen',
        executable: 'signal-generator',
        config: { sampleRate: 100, amplitudes: [1], frequencies: [5] },
      },
      { id: 'ext', executable: 'stubborn.sh' },
      { id: 'spin', executable: 'test-loop' },
    ],
    [pipe('p1', 'gen', 'ext'), pipe('p2', 'gen', 'spin')],
  );
  await rt.start(stream);
  const pid = Number(rt.status(stream.id)?.nodes.ext?.info?.pid);
  // Found in the node's process group, not in its log: the log line is read by the worker that the
  // spinning node may already hold.
  const grandchild = await eventually(
    () => groupMembers(pid).find((member) => member !== pid),
    5000,
    'grandchild pid',
  );
  expect(running(pid)).toBe(true);
  expect(running(grandchild)).toBe(true);

  await eventually(() => events.find((e) => e.type === 'stream_failed'), 10_000, 'stream_failed');
  await eventually(() => !running(pid) && !running(grandchild), 5000, 'the node and its grandchild gone');
}, 30_000);

/** Pids of the living (not zombie) members of process group `pgid`, from /proc. */
function groupMembers(pgid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') found.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return found;
}

test('SIGTERM of the service, an upload in flight, leaves no process of a node that ignores stdin EOF and SIGTERM, and exits 0', async () => {
  const dataDir = tempDataDir();
  const executables = path.join(dataDir, 'executables');
  mkdirSync(executables, { recursive: true });
  const script = path.join(executables, 'deaf.sh');
  // Ignores SIGTERM (inherited by its children) and never reads stdin; starts a helper in its
  // group and one that leaves the group with setsid; writes their pids next to itself.
  writeFileSync(
    script,
    [
      '#!/bin/sh',
      "trap '' TERM",
      'dir=$(dirname "$0")',
      'printf \'{"type":"ready","inputs":["in"],"outputs":[]}\\n\'',
      'sleep 300 &',
      'echo $! > "$dir/helper.pid"',
      'setsid sleep 300 &',
      'echo $! > "$dir/escapee.pid"',
      'exec sleep 300 </dev/null',
      '',
    ].join('\n'),
  );
  chmodSync(script, 0o755);
  const service = await startService({ dataDir });
  const id = 'cccccccc-0000-4000-8000-000000000001';
  const created = await json(`${service.url}/stream/streams/yaml`, {
    method: 'POST',
    headers: { 'content-type': 'text/yaml' },
    body: [
      `id: ${id}`,
      'nodes:',
      '  - { id: gen, executable: signal-generator, config: { sampleRate: 100, amplitudes: [1], frequencies: [5] } }',
      '  - { id: deaf, executable: deaf.sh }',
      'pipes:',
      '  - { id: p, source: gen, destination: deaf }',
    ].join('\n'),
  });
  expect(created.body).toEqual({ id, success: true });
  await json(`${service.url}/stream/streams/${id}/signal`, {
    method: 'POST',
    body: new URLSearchParams({ signal: 'start' }),
  });
  const pgid = await eventually(async () => {
    const { body } = await json(`${service.url}/stream/streams/${id}/status`);
    const node = body.status.nodes.find((n: { id: string }) => n.id === 'deaf');
    return typeof node?.pid === 'number' ? (node.pid as number) : undefined;
  });
  const pidIn = (file: string) =>
    eventually(async () => {
      const text = readFileSync(path.join(executables, file), 'utf8').trim();
      return text === '' ? undefined : Number(text);
    });
  const helper = await pidIn('helper.pid');
  const escapee = await pidIn('escapee.pid');
  // The escapee is in the group until its setsid() has run, a moment after its pid was written.
  const expected = [pgid, helper].sort().join(' ');
  await eventually(async () => (groupMembers(pgid).sort().join(' ') === expected ? true : undefined));
  expect(groupMembers(pgid).sort()).toEqual([pgid, helper].sort());
  expect(running(escapee)).toBe(true);
  // Contained when the service could make a cgroup of its own (Linux with a writable cgroup v2).
  const contained = readFileSync(`/proc/${service.process.pid}/cgroup`, 'utf8').includes('/headsetd-');

  // A client still uploading a body keeps its request in flight: closing the HTTP server waited
  // for it, the streams were never stopped, and the forced exit left the node running (ppid 1).
  const upload = connect({ host: '127.0.0.1', port: service.port });
  upload.on('error', () => undefined);
  upload.write(
    'POST /stream/streams HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
  );
  await new Promise((resolve) => upload.once('ready', resolve));

  const exit = await service.stop('SIGTERM');
  upload.destroy();
  expect(exit).toEqual({ code: 0, signal: null });
  // SIGKILL was sent before the exit; the kernel may take a moment to end the processes.
  await eventually(() => (groupMembers(pgid).length === 0 ? true : undefined), 5000, 'the node group gone');
  if (contained) await eventually(() => !running(escapee) || undefined, 5000, 'the setsid escapee gone');
  else process.kill(escapee, 'SIGKILL');
}, 30_000);

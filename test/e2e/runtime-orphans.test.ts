/**
 * No external program outlives its stream: when a stream's worker hangs and is terminated, the
 * worker cannot stop its nodes, so the main thread kills the process groups they declared. The
 * program here ignores the end of its input and any polite request: only the group kill ends it.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { WorkerRuntime } from '../../src/runtime/worker-runtime.js';
import type { RuntimeEvent } from '../../src/streams/runtime-port.js';
import { definition, pipe, TEST_NODES_MODULE, waitFor } from '../runtime/helpers.js';

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
  const dataDir = mkdtempSync(path.join(tmpdir(), 'headsetd-orphans-'));
  const executables = path.join(dataDir, 'executables');
  mkdirSync(executables);
  const script = path.join(executables, 'stubborn.sh');
  // Announces ready, then starts a grandchild and ignores stdin's end: a node that breaks the protocol.
  writeFileSync(
    script,
    '#!/bin/sh\nprintf \'{"type":"ready","inputs":["in"],"outputs":[]}\\n\'\nsleep 300 &\necho "grandchild $!" >&2\nexec sleep 300 </dev/null\n',
  );
  chmodSync(script, 0o755);

  const rt = new WorkerRuntime({
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
  const grandchild = Number(
    (
      await waitFor(
        () => rt.logs(stream.id, 'ext').find((l) => l.line.startsWith('grandchild ')),
        5000,
        'grandchild pid',
      )
    ).line.split(' ')[1],
  );
  expect(running(pid)).toBe(true);
  expect(running(grandchild)).toBe(true);

  await waitFor(() => events.find((e) => e.type === 'stream_failed'), 10_000, 'stream_failed');
  await waitFor(() => !running(pid) && !running(grandchild), 5000, 'the node and its grandchild gone');
}, 30_000);

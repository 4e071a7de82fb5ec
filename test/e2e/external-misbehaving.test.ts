/**
 * Four misbehaving external nodes in one stream of the real service: one that crash-loops, one
 * that floods stdout, one that never reads stdin, one that ignores SIGTERM (and keeps a helper
 * process in its group). The rest of the stream runs on (a websocket client gets every frame), the
 * API answers, what the service holds for them stays within its bounds (read from the nodes'
 * counters and limits, not from time), and once the service has stopped no process of any of them
 * is left, found by process group and by the stream id in their environment.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { FrameClient, seqGaps } from '../runtime/helpers.js';
import { json, type Service, startService, tempDataDir } from '../support/service.js';

const ID = 'ffffffff-0000-4000-8000-000000000004';
let service: Service | undefined;
afterEach(async () => {
  await service?.stop('SIGKILL');
  service = undefined;
  // A failed run must not leave its nodes behind (a service killed with -9 kills none of them).
  for (const pid of processesOfStream(ID)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
});

const SCRIPTS: Record<string, string> = {
  // Answers ready, then dies: restarted with backoff until its crash-loop limit.
  'crash.sh': `#!/bin/sh
printf '{"type":"ready","inputs":["in"],"outputs":[]}\\n'
echo "dying" >&2
exit 3
`,
  // Writes frames as fast as it can, whatever the stream takes.
  'flood.py': `#!/usr/bin/python3
import sys
out = sys.stdout
out.write('{"type":"ready","inputs":[],"outputs":["out"]}\\n')
seq = 0
while True:
    out.write('{"type":"frame","port":"out","seq":%d,"timestamp":1700000000000,"sampleRate":250,"channels":["a"],"data":[[1]]}\\n' % seq)
    seq += 1
`,
  // Keeps its stdin open and never reads it: the pipe to it fills.
  'deaf.sh': `#!/bin/sh
printf '{"type":"ready","inputs":["in"],"outputs":[]}\\n'
exec sleep 300
`,
  // Ignores SIGTERM (as does its helper), reads its input, then lingers past the end of it.
  'stubborn.sh': `#!/bin/sh
trap '' TERM
printf '{"type":"ready","inputs":["in"],"outputs":[]}\\n'
sleep 300 &
cat > /dev/null
exec sleep 300
`,
};
import { eventually } from '../support/wait.js';

/** Pids of the living processes whose environment names the stream (every node child and its helpers). */
function processesOfStream(id: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(`HEADSETD_STREAM_ID=${id}`))
        found.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** Which node a process belongs to, for a failure message. */
function nodeOf(pid: number): string {
  try {
    const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    return `${pid} (${env.find((v) => v.startsWith('HEADSETD_NODE_ID=')) ?? '?'})`;
  } catch {
    return `${pid} (gone)`;
  }
}

/** Living members of process group `pgid`. */
function groupMembers(pgid: number): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return Number(fields[2]) === pgid && fields[0] !== 'Z';
      } catch {
        return false;
      }
    })
    .map(Number);
}

interface NodeView {
  id: string;
  state: string;
  pid?: number;
  metrics: { restarts: number; framesDropped: number; lastError: string | null };
  [info: string]: unknown;
}

test('crash-looping, flooding, deaf and SIGTERM-proof nodes: the stream and the API run on, within bounds; nothing is left after shutdown', async () => {
  const dataDir = tempDataDir();
  const executables = path.join(dataDir, 'executables');
  mkdirSync(executables, { recursive: true });
  for (const [name, text] of Object.entries(SCRIPTS)) {
    writeFileSync(path.join(executables, name), text);
    chmodSync(path.join(executables, name), 0o755);
  }
  service = await startService({ dataDir });
  const { url } = service;
  const created = await json(`${url}/stream/streams`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      id: ID,
      nodes: [
        {
          id: 'gen',
          executable: 'signal-generator',
          config: { sampleRate: 1000, amplitudes: [1], frequencies: [5], channels: 8 },
        },
        { id: 'ws', executable: 'websocket', config: { port: 0 } },
        { id: 'crash', executable: 'crash.sh' },
        { id: 'flood', executable: 'flood.py' },
        { id: 'log', executable: 'logger' },
        { id: 'deaf', executable: 'deaf.sh' },
        { id: 'stubborn', executable: 'stubborn.sh' },
      ],
      pipes: [
        // Holds more than the generator emits at once after a stall of the stream's thread (at
        // most 1 s of catch-up, 100 frames; beyond that it skips, seq unbroken): a busy machine
        // does not make this pipe drop, so a seq gap at the client is the misbehaving nodes' doing.
        { id: 'to-ws', source: 'gen', destination: 'ws', capacity: 128 },
        { id: 'to-crash', source: 'gen', destination: 'crash' },
        { id: 'from-flood', source: 'flood', destination: 'log', capacity: 32 },
        { id: 'to-deaf', source: 'gen', destination: 'deaf' },
        { id: 'to-stubborn', source: 'gen', destination: 'stubborn' },
      ],
    }),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const started = await json(`${url}/stream/streams/${ID}/signal`, {
    method: 'POST',
    body: new URLSearchParams({ signal: 'start' }),
  });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const status = async () => {
    const answer = await json(`${url}/stream/streams/${ID}/status`);
    expect(answer.status).toBe(200);
    return answer.body.status as {
      state: string;
      nodes: NodeView[];
      pipes: Record<string, { queueDepth: number; framesDropped: number }>;
    };
  };
  const node = async (id: string) => (await status()).nodes.find((n) => n.id === id)!;
  const ws = await eventually(async () => {
    const n = await node('ws');
    return typeof n.port === 'number' ? n : undefined;
  });
  const client = await FrameClient.connect(ws.port as number);

  // Every misbehaviour has shown, each seen through the service's own counters.
  const crash = await eventually(
    async () => {
      const n = await node('crash');
      return n.metrics.restarts >= 2 ? n : undefined;
    },
    20_000,
    'the crash-looping node restarted twice',
  );
  expect(crash.metrics.lastError).toMatch(/crash\.sh/);
  const deaf = await eventually(
    async () => {
      const n = await node('deaf');
      return typeof n.framesDroppedToNode === 'number' && n.framesDroppedToNode > 0 ? n : undefined;
    },
    20_000,
    'frames dropped towards the deaf node',
  );
  const flood = await eventually(
    async () => {
      const n = await node('flood');
      return typeof n.framesDroppedFromNode === 'number' && n.framesDroppedFromNode > 0 ? n : undefined;
    },
    20_000,
    'frames dropped from the flooding node',
  );
  // Bounded: what waits for or from a child never exceeds its limit, nor a pipe its capacity.
  for (const n of [deaf, flood]) {
    expect(n.maxQueuedFrames).toBe(256);
    expect(n.framesQueuedToNode as number).toBeLessThanOrEqual(256);
    expect(n.framesQueuedFromNode as number).toBeLessThanOrEqual(256);
  }
  const now = await status();
  expect(now.pipes['from-flood']!.queueDepth).toBeLessThanOrEqual(32);
  expect(now.pipes['from-flood']!.framesDropped + (flood.framesDroppedFromNode as number)).toBeGreaterThan(0);

  // The rest of the stream runs on: the client gets 100 frames more, none missing.
  const before = client.frames.length;
  await eventually(
    async () => (client.frames.length >= before + 100 ? true : undefined),
    20_000,
    'healthy frames',
  );
  client.close();
  const after = await status();
  // Every frame the client missed is one the service counted: the pipe to the websocket node drops
  // its oldest frames when the stream's worker falls behind (beside a CPU hog, while four programs
  // start and one floods), and the node counts what it skips for a slow client. None is lost silently.
  const seqs = client.seqs();
  const missed = seqGaps(seqs).reduce((n, i) => n + (seqs[i] ?? 0) - (seqs[i - 1] ?? 0) - 1, 0);
  const wsNode = after.nodes.find((n) => n.id === 'ws');
  expect(missed).toBeLessThanOrEqual(
    (after.pipes['to-ws']?.framesDropped ?? 0) + (wsNode?.metrics.framesDropped ?? 0),
  );
  expect(after.state).toBe('running');
  const states = Object.fromEntries(after.nodes.map((n) => [n.id, n.state]));
  expect(states).toMatchObject({
    gen: 'running',
    ws: 'running',
    flood: 'running',
    deaf: 'running',
    stubborn: 'running',
  });
  expect((await json(`${url}/system/status`)).status).toBe(200);

  const pids = after.nodes.flatMap((n) => (typeof n.pid === 'number' ? [n.pid] : []));
  expect(pids.length).toBeGreaterThanOrEqual(3);
  expect(processesOfStream(ID).length).toBeGreaterThan(pids.length - 1);

  // SIGTERM: the service stops every node, kills what ignores it, and exits 0.
  expect(await service.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  await eventually(
    async () =>
      pids.every((pid) => groupMembers(pid).length === 0) && processesOfStream(ID).length === 0
        ? true
        : undefined,
    5000,
    'no process of any node left',
  ).catch(() => undefined);
  expect(processesOfStream(ID).map(nodeOf)).toEqual([]);
}, 60_000);

/**
 * Timestamps no recording can hold (issue: `timestamp: 1e300` was ingested; the CSV recorder then
 * threw `Invalid time value` and restarted in a loop, writing nothing). On the real service with
 * real clients:
 * - the ingest WebSocket refuses such a frame (close 1007, the accepted span in the reason), and
 *   the recorders behind it go on;
 * - a frame with such a time that reaches recorders another way (an external node) stops the EDF,
 *   BDF and CSV recorders alike, for good, with one clear message; a file begun before it is
 *   closed cleanly with the reason as its last annotation.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { FRAME_TIME_END_MS, FRAME_TIME_MIN_MS } from '../../src/core/frame-time.js';
import { edflibCheck } from '../support/edf-check.js';
import { json, type Service, startService } from '../support/service.js';
import { eventually } from '../support/wait.js';
import { scratchDir } from '../support/scratch.js';

// One service for the file, with the external node of the second case allowed: each case has its
// own stream id and recording names.
let service: Service;
beforeAll(async () => {
  const executables = scratchDir('headsetd-bad-clock');
  // Passes `after` frames on unchanged, then stamps every frame 1e300 ms.
  writeFileSync(
    path.join(executables, 'bad-clock.mjs'),
    `const { run, frameLike } = await import(process.env.HEADSETD_SDK ?? 'headsetd/sdk');
let after = 0;
let seen = 0;
run({
  inputs: ['in'],
  outputs: ['out'],
  onStart(config) { after = config.after ?? 0; },
  onData(port, frame, send) {
    const out = frameLike(frame, frame.data);
    send('out', seen++ < after ? out : { ...out, timestamp: 1e300 });
  },
});
`,
  );
  service = await startService({ args: ['--executables-dir', executables] });
});
afterAll(async () => {
  await service.stop('SIGKILL');
});

const FORMATS = ['csv', 'edf', 'bdf'] as const;
const SPAN = `${FRAME_TIME_MIN_MS}..${FRAME_TIME_END_MS - 1}`;

interface NodeStatus {
  id: string;
  state: string;
  metrics: { samplesProcessed: number; restarts: number; lastError: string | null };
}

async function nodesOf(url: string, id: string): Promise<NodeStatus[]> {
  const status = await json(`${url}/stream/streams/${id}/status`);
  return status.body.status.nodes as NodeStatus[];
}

async function createAndStart(url: string, stream: unknown): Promise<void> {
  const created = await json(`${url}/stream/streams`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(stream),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const id = (stream as { id: string }).id;
  const started = await json(`${url}/stream/streams/${id}/signal`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ signal: 'start' }),
  });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  // The start answers within its wait (0.5 s), which a busy machine's first start, booting a
  // worker, may exceed: the ingest socket accepts once the stream runs.
  await eventually(
    async () => {
      const answer = await json(`${url}/stream/streams/${id}/status`);
      return (answer.body as { status: { state: string } }).status.state === 'running' ? true : undefined;
    },
    30_000,
    `stream ${id} running`,
  );
}

function recorders(prefix: string, source: string) {
  return {
    nodes: FORMATS.map((format) => ({
      id: `${prefix}-${format}`,
      executable: 'recorder',
      config: { filename: prefix, format },
    })),
    pipes: FORMATS.map((format) => ({
      id: `p-${prefix}-${format}`,
      source,
      destination: `${prefix}-${format}`,
      policy: 'block',
    })),
  };
}

function frame(timestamp: number, seq: number) {
  return {
    seq,
    timestamp,
    sampleRate: 250,
    channels: ['Cz'],
    data: Array.from({ length: 25 }, (_, i) => [i]),
  };
}

/** Opens `url`, sends `messages` in order, and answers how the service closed the socket. */
async function sendAll(url: string, messages: unknown[]): Promise<{ code: number; reason: string }> {
  const socket = new WebSocket(url);
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.once('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
    });
  });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  for (const message of messages) socket.send(JSON.stringify(message));
  return closed;
}

describe('implausible timestamps', () => {
  test('the ingest socket refuses timestamp 1e300 (and seconds for ms) with 1007 and the span; its recorders go on', async () => {
    const id = '0d6c2a4e-5b7f-4c1d-8e9a-1f2b3c4d5e01';
    const { nodes, pipes } = recorders('ingested', 'in');
    await createAndStart(service.url, {
      id,
      nodes: [{ id: 'in', executable: 'ingest', config: { sampleRate: 250, channels: ['Cz'] } }, ...nodes],
      pipes,
    });
    const ingest = `${service.url.replace('http', 'ws')}/stream/${id}/ingest`;
    const now = Date.now();
    const seconds = Math.floor(now / 1000);
    for (const [round, bad, shown] of [
      [0, 1e300, '1e+300'],
      [1, seconds, String(seconds)],
    ] as const) {
      const good = Array.from({ length: 60 }, (_, k) => frame(now + (round * 60 + k) * 100, k));
      const closed = await sendAll(ingest, [...good, frame(bad, 60)]);
      expect(closed.code).toBe(1007);
      expect(closed.reason).toBe(
        `message 61: timestamp ${shown} is outside ${SPAN} (ms since the epoch, 1985-2084)`,
      );
    }
    // Every good frame was recorded, and no recorder saw the refused ones.
    const url = service.url;
    await eventually(async () => {
      const recs = (await nodesOf(url, id)).filter((n) => n.id.startsWith('ingested-'));
      return recs.every((n) => n.metrics.samplesProcessed >= 2 * 60 * 25) ? true : undefined;
    });
    for (const node of (await nodesOf(url, id)).filter((n) => n.id.startsWith('ingested-'))) {
      expect(node.state).toBe('running');
      expect(node.metrics.lastError).toBeNull();
    }
  });

  test('a frame time no recording can hold stops the EDF, BDF and CSV recorders alike, once, with one message', async () => {
    const id = '0d6c2a4e-5b7f-4c1d-8e9a-1f2b3c4d5e02';
    const first = recorders('never', 'clock0');
    const later = recorders('stopped', 'clock1');
    await createAndStart(service.url, {
      id,
      nodes: [
        {
          id: 'gen',
          executable: 'signal-generator',
          config: { sampleRate: 250, amplitudes: [50], frequencies: [10], channelNames: ['Cz'] },
        },
        { id: 'clock0', executable: 'node bad-clock.mjs', config: { after: 0 } },
        { id: 'clock1', executable: 'node bad-clock.mjs', config: { after: 60 } },
        ...first.nodes,
        ...later.nodes,
      ],
      pipes: [
        { id: 'g0', source: 'gen', destination: 'clock0' },
        { id: 'g1', source: 'gen', destination: 'clock1' },
        ...first.pipes,
        ...later.pipes,
      ],
    });
    const url = service.url;
    const stopped = await eventually(
      async () => {
        const recs = (await nodesOf(url, id)).filter((n) => n.id.includes('-'));
        return recs.length === 6 && recs.every((n) => n.state === 'error') ? recs : undefined;
      },
      20_000,
      'every recorder in error',
    );
    const problem = `a frame's timestamp 1e+300 is not a time a frame can have: it must be ms since the Unix epoch from ${FRAME_TIME_MIN_MS} to ${FRAME_TIME_END_MS - 1} (1985-01-01 to 2084-12-31 UTC).`;
    for (const node of stopped) {
      const [prefix, format] = node.id.split('-') as [string, string];
      expect(node.metrics.lastError).toBe(`recording "${prefix}.${format}" stopped: ${problem}`);
      expect(node.metrics.restarts).toBe(0);
    }
    const listing = await json(`${url}/system/recordings`);
    const mine = (listing.body.recordings as { name: string; complete: boolean }[]).filter((r) =>
      /^(never|stopped)\./.test(r.name),
    );
    // The recorders stopped on their first frame kept nothing; the others closed their file cleanly.
    expect(mine.map((r) => r.name).sort()).toEqual(['stopped.bdf', 'stopped.csv', 'stopped.edf']);
    for (const r of mine) expect(r.complete).toBe(true);
    for (const name of ['stopped.edf', 'stopped.bdf']) {
      const check = edflibCheck(path.join(service.dataDir, 'recordings', name), { samples: false });
      expect(check.ok).toBe(true);
      expect(check.annotations.map((a) => a.text)).toContain(`Recording stopped: ${problem.slice(0, -1)}`);
    }
    const csvEvents = readFileSync(path.join(service.dataDir, 'recordings', 'stopped.events.csv'), 'utf8');
    expect(csvEvents).toContain('Recording stopped: a frame');
  });
});

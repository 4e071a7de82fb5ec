/* global console, fetch */
/**
 * Soak: the real service (dist/headsetd.mjs) under a mixed load for a given time, reporting every
 * `--every` seconds what a leak would show: resident memory of the service and its children, open
 * file descriptors, child processes, threads and the API thread's event loop delay. Not part of
 * `npm test` (it runs for minutes); `npm run soak -- --minutes 10`. docs/reliability.md has the
 * last result and how to read it.
 *
 * The load, all at once, each actor in a loop until the time is up:
 * - 3 churners: create a stream (generator 8 ch × 250 Hz → band-pass → websocket), start it,
 *   connect 1–3 websocket clients, edit it while it runs (a new filter band; a logger node added
 *   then removed), stop and delete it;
 * - 2 steady streams, running throughout, each with a reader;
 * - the device: a stream of the headset's EEG into a recorder (EDF+, BDF+ or CSV) for 4–8 s, then
 *   an impedance measurement between two acquisitions; the newest 5 recordings are kept;
 * - an events client that reconnects every 20–40 s.
 * Every answer is checked: a status the step does not expect counts as an error, and is printed.
 *
 * Options: --minutes M (default 10), --every S (default 10), --seed N, --out FILE (JSON result),
 * --warm-up M (minutes before the trend is read; default half the run),
 * --heap-snapshots DIR (heap snapshots of the service's main thread after the warm-up and at the
 * end, to compare what grew).
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { startService } from './lib/service.js';

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    every: { type: 'string', default: '10' },
    seed: { type: 'string', default: '1' },
    out: { type: 'string' },
    'heap-snapshots': { type: 'string' },
    'warm-up': { type: 'string' },
  },
});
const DURATION_MS = Number(args.minutes) * 60_000;
const EVERY_MS = Number(args.every) * 1000;
/**
 * The trend is read after the warm-up: by default half the run, at least a minute. Memory rises
 * while V8's heaps and the allocator reach their working size (docs/reliability.md), then stays;
 * a leak goes on rising.
 */
const WARM_UP_S =
  args['warm-up'] === undefined ? Math.max(60, DURATION_MS / 2000) : Number(args['warm-up']) * 60;

/** mulberry32: a small seeded generator, so that a run's sequence of actions can be repeated. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = prng(Number(args.seed));
const between = (low, high) => low + random() * (high - low);

const counts = {
  requests: 0,
  errors: 0,
  streamsCreated: 0,
  edits: 0,
  clients: 0,
  recordings: 0,
  impedance: 0,
};
const errors = [];

function fail(what) {
  counts.errors += 1;
  if (errors.length < 50) errors.push(what);
  console.error(`error: ${what}`);
}

async function call(service, method, path, body, expected = [200]) {
  counts.requests += 1;
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!expected.includes(response.status))
    fail(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    return { status: response.status, body: text };
  }
}

function filtered(low) {
  return {
    nodes: [
      {
        id: 'gen',
        executable: 'signal-generator',
        config: { sampleRate: 250, amplitudes: [20], frequencies: [10], channels: 8, noise: 2 },
      },
      { id: 'filt', executable: 'filter', config: { highpass: low, lowpass: 40, notch: 50 } },
      { id: 'ws', executable: 'websocket', config: { port: 0 } },
    ],
    pipes: [
      { id: 'p1', source: 'gen', destination: 'filt' },
      { id: 'p2', source: 'filt', destination: 'ws' },
    ],
  };
}

/** A websocket client on a node's port that counts frames and seq gaps until closed. */
function reader(port) {
  counts.clients += 1;
  const socket = new WebSocket(`ws://127.0.0.1:${port}/`);
  let last;
  socket.on('message', (data) => {
    const frame = JSON.parse(data.toString());
    if (last !== undefined && frame.seq !== last + 1 && !frame.discontinuity) {
      fail(`websocket on port ${port}: seq ${last} → ${frame.seq}`);
    }
    last = frame.seq;
  });
  socket.on('error', () => undefined);
  return () => socket.terminate();
}

async function wsPort(service, id) {
  for (let i = 0; i < 50; i++) {
    const { body } = await call(service, 'GET', `/stream/streams/${id}/status`);
    const ws = body.status?.nodes?.find?.((n) => n.id === 'ws');
    if (typeof ws?.port === 'number' && ws.port > 0) return ws.port;
    await sleep(100);
  }
  fail(`stream ${id}: no websocket port in its status`);
  return undefined;
}

async function churner(service, until) {
  while (Date.now() < until) {
    const id = randomUUID();
    await call(service, 'POST', '/stream/streams', { id, meta: { name: 'soak churn' }, ...filtered(1) });
    counts.streamsCreated += 1;
    await call(service, 'POST', `/stream/streams/${id}/signal`, { signal: 'start' });
    const port = await wsPort(service, id);
    const closers = [];
    if (port !== undefined) for (let c = 0; c < 1 + Math.floor(random() * 3); c++) closers.push(reader(port));
    await sleep(between(1000, 3000));
    await call(service, 'PUT', `/stream/streams/${id}`, { meta: { name: 'soak churn' }, ...filtered(2) });
    await call(service, 'POST', `/stream/streams/${id}/nodes`, [{ id: 'log', executable: 'logger' }]);
    await call(service, 'POST', `/stream/streams/${id}/pipes`, [
      { id: 'p3', source: 'filt', destination: 'log' },
    ]);
    await sleep(between(500, 2000));
    await call(service, 'DELETE', `/stream/streams/${id}/nodes`, ['log']);
    counts.edits += 4;
    await sleep(between(500, 2000));
    for (const close of closers) close();
    await call(service, 'POST', `/stream/streams/${id}/signal`, { signal: 'stop' });
    await call(service, 'DELETE', `/stream/streams/${id}`);
  }
}

async function steady(service, until) {
  const id = randomUUID();
  await call(service, 'POST', '/stream/streams', { id, meta: { name: 'soak steady' }, ...filtered(1) });
  await call(service, 'POST', `/stream/streams/${id}/signal`, { signal: 'start' });
  const port = await wsPort(service, id);
  const close = port === undefined ? () => undefined : reader(port);
  while (Date.now() < until) await sleep(1000);
  close();
  await call(service, 'DELETE', `/stream/streams/${id}`);
}

async function device(service, until) {
  const formats = ['edf', 'bdf', 'csv'];
  let n = 0;
  while (Date.now() < until) {
    const id = randomUUID();
    const format = formats[n % formats.length];
    const filename = `soak-${n++}`;
    await call(service, 'POST', '/stream/streams', {
      id,
      meta: { name: 'soak recording' },
      nodes: [
        { id: 'eeg', executable: 'eeg-source', config: { channels: ['FP1', 'FP2', 'CZ', 'O1', 'O2'] } },
        { id: 'rec', executable: 'recorder', config: { filename, format } },
      ],
      pipes: [{ id: 'p', source: 'eeg', destination: 'rec' }],
    });
    await call(service, 'POST', `/stream/streams/${id}/signal`, { signal: 'start' });
    await sleep(between(4000, 8000));
    await call(service, 'DELETE', `/stream/streams/${id}`);
    counts.recordings += 1;
    // Between two acquisitions, a single impedance measurement, waited for.
    const started = await call(service, 'POST', '/electrodes/impedance/start', { continuous: false });
    const sessionId = started.body?.sessionId;
    for (let i = 0; i < 100 && sessionId !== undefined; i++) {
      const { body } = await call(service, 'GET', `/electrodes/impedance?sessionId=${sessionId}`);
      if (body.status !== 'running') {
        if (body.status !== 'completed') fail(`impedance session ${sessionId} ended ${body.status}`);
        break;
      }
      await sleep(200);
    }
    counts.impedance += 1;
    const { body } = await call(service, 'GET', '/system/recordings');
    const listed = (body.recordings ?? []).sort((a, b) => String(a.created).localeCompare(String(b.created)));
    for (const old of listed.slice(0, Math.max(0, listed.length - 5))) {
      await call(service, 'DELETE', `/system/recordings/${encodeURIComponent(old.name)}`);
    }
    await sleep(between(500, 1500));
  }
}

async function events(service, until) {
  while (Date.now() < until) {
    const socket = new WebSocket(`${service.url.replace('http', 'ws')}/system/events`);
    socket.on('error', (error) => fail(`events socket: ${error.message}`));
    await sleep(Math.min(between(20_000, 40_000), Math.max(0, until - Date.now())));
    socket.terminate();
  }
}

/** Processes descending from `pid`, from /proc. */
function descendants(pid) {
  const parent = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out = [];
  for (const p of parent.keys()) {
    for (
      let at = parent.get(p), depth = 0;
      at !== undefined && at > 1 && depth < 64;
      at = parent.get(at), depth++
    ) {
      if (at === pid) {
        out.push(p);
        break;
      }
    }
  }
  return out;
}

function statusField(pid, field) {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${field}:`));
    return Number(line?.split(/\s+/)[1] ?? Number.NaN);
  } catch {
    return 0;
  }
}

async function sample(service, startedAt) {
  const children = descendants(service.pid);
  const rssKiB = [service.pid, ...children].reduce((sum, pid) => sum + statusField(pid, 'VmRSS'), 0);
  const { body } = await call(service, 'GET', '/system/healthz');
  const delay = body.service?.eventLoopDelayMs;
  return {
    seconds: Math.round((Date.now() - startedAt) / 1000),
    rssMiB: Math.round((rssKiB / 1024) * 10) / 10,
    openFiles: readdirSync(`/proc/${service.pid}/fd`).length,
    childProcesses: children.length,
    threads: statusField(service.pid, 'Threads'),
    heapMiB: Math.round(((body.service?.heapUsed ?? 0) / 1048576) * 10) / 10,
    loopDelayP99Ms: delay?.p99 ?? null,
    loopDelayMaxMs: delay?.max ?? null,
    errors: counts.errors,
  };
}

/** Least-squares slope of y over x. */
function slope(points) {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, p) => s + p[0], 0) / n;
  const my = points.reduce((s, p) => s + p[1], 0) / n;
  const sxy = points.reduce((s, p) => s + (p[0] - mx) * (p[1] - my), 0);
  const sxx = points.reduce((s, p) => s + (p[0] - mx) ** 2, 0);
  return sxx === 0 ? 0 : sxy / sxx;
}

const snapshots = args['heap-snapshots'];
const service = await startService({
  nodeOptions:
    snapshots === undefined ? [] : ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapshots}`],
});
const startedAt = Date.now();
const until = startedAt + DURATION_MS;
console.log(`soak: ${args.minutes} min on ${service.url} (pid ${service.pid}), seed ${args.seed}`);
console.log('   s   RSS MiB  heap MiB  fds  children  threads  loop p99 ms  loop max ms  errors');
const samples = [];
let snapshotTaken = false;
const reporter = (async () => {
  await call(service, 'GET', '/system/healthz'); // starts the service's delay monitor
  while (Date.now() < until) {
    await sleep(Math.min(EVERY_MS, Math.max(0, until - Date.now())));
    const s = await sample(service, startedAt);
    samples.push(s);
    if (snapshots !== undefined && s.seconds >= WARM_UP_S && !snapshotTaken) {
      snapshotTaken = true;
      process.kill(service.pid, 'SIGUSR2');
    }
    console.log(
      [
        String(s.seconds).padStart(4),
        String(s.rssMiB).padStart(9),
        String(s.heapMiB).padStart(9),
        String(s.openFiles).padStart(4),
        String(s.childProcesses).padStart(9),
        String(s.threads).padStart(8),
        String(s.loopDelayP99Ms).padStart(12),
        String(s.loopDelayMaxMs).padStart(12),
        String(s.errors).padStart(7),
      ].join(' '),
    );
  }
})();
const actors = [
  churner(service, until),
  churner(service, until),
  churner(service, until),
  steady(service, until),
  steady(service, until),
  device(service, until),
  events(service, until),
];
let crashed;
try {
  await Promise.all([...actors, reporter]);
} catch (error) {
  crashed = error;
  fail(`the load stopped: ${error.message}`);
}
if (snapshots !== undefined) {
  // The second snapshot: wait until its file is there and no longer grows before stopping.
  const count = () => readdirSync(snapshots).filter((f) => f.endsWith('.heapsnapshot')).length;
  const before = count();
  process.kill(service.pid, 'SIGUSR2');
  for (let i = 0; i < 120 && count() === before; i++) await sleep(500);
  await sleep(3000);
}
await service.stop();

// The trend after the warm-up: memory by its least-squares slope (growth per 10 minutes, within
// 5 % of its mean), descriptors, processes and threads by the median of the window's last third
// against its first (they step up and down with the load at the moment of each sample).
const warm = samples.filter((s) => s.seconds >= WARM_UP_S);
const per10min = (key) => Math.round(slope(warm.map((s) => [s.seconds, s[key]])) * 600 * 10) / 10;
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : (sorted[Math.floor((sorted.length - 1) / 2)] ?? 0);
};
const third = Math.max(1, Math.floor(warm.length / 3));
const step = (key) =>
  median(warm.slice(-third).map((s) => s[key])) - median(warm.slice(0, third).map((s) => s[key]));
const trend = {
  rssMiBPer10Min: per10min('rssMiB'),
  heapMiBPer10Min: per10min('heapMiB'),
  openFilesStep: step('openFiles'),
  childProcessesStep: step('childProcesses'),
  threadsStep: step('threads'),
};
const meanRss = warm.reduce((s, x) => s + x.rssMiB, 0) / Math.max(1, warm.length);
const growing = [
  trend.rssMiBPer10Min > meanRss * 0.05 ? 'memory' : undefined,
  trend.openFilesStep > 4 ? 'file descriptors' : undefined,
  trend.childProcessesStep > 0 ? 'child processes' : undefined,
  trend.threadsStep > 1 ? 'threads' : undefined,
].filter(Boolean);
const result = {
  date: new Date().toISOString(),
  minutes: Number(args.minutes),
  warmUpSeconds: WARM_UP_S,
  seed: Number(args.seed),
  counts,
  trend,
  meanRssMiB: Math.round(meanRss * 10) / 10,
  growing,
  errors,
  samples,
};
console.log(`\n${JSON.stringify({ counts, trend, meanRssMiB: result.meanRssMiB, growing })}`);
if (args.out !== undefined) writeFileSync(args.out, `${JSON.stringify(result, null, 2)}\n`);
const ok = crashed === undefined && counts.errors === 0 && growing.length === 0;
console.log(
  ok ? 'soak: no growth, no errors' : `soak: FAILED (${[...growing, `${counts.errors} errors`].join(', ')})`,
);
process.exit(ok ? 0 : 1);

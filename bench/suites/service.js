/* global console */
/**
 * The service as a process: start-up to the listening line and resident memory, each against a
 * bare Fastify server with one route (bench/lib/bare-fastify.mjs) started and measured the same
 * way in the same run.
 *
 * - service.startup: median of STARTS starts of `dist/headsetd.mjs serve` ÷ the same of the bare
 *   server. Budget: 0.4 s on the 2-core development machine, about 3 × its bare Fastify.
 * - service.rss.idle: RSS of the idle service (it keeps one stream worker warm) ÷ the bare server's.
 * - service.rss.streams10: RSS with 10 streams of 4 built-ins (generator 21 ch × 2 kHz → filter
 *   → websocket, plus a logger) and a client reading each websocket ÷ the idle service's RSS.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { URL } from 'node:url';
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { requestJson } from '../lib/http-load.js';
import { median } from '../lib/measure.js';
import { result } from '../lib/result.js';
import { startService } from '../lib/service.js';

const STARTS = 7;
const BARE = new URL('../lib/bare-fastify.mjs', import.meta.url).pathname;
/** Memory is read after this long: workers booted, JIT settled, buffers at their working size. */
const SETTLE_MS = 3000;

/** Resident memory of a process in MiB (Linux). */
function rssMiB(pid) {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match === null ? Number.NaN : Number(match[1]) / 1024;
}

/** Spawns `argv`, resolves with the ms until it printed a listening line, then stops it. */
async function timeToListen(argv) {
  const started = performance.now();
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk.toString('utf8');
      if (/listening on http/.test(out)) resolve(performance.now() - started);
    });
    child.once('exit', (code) => reject(new Error(`${argv[0]} exited with ${code} before listening`)));
  });
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  return ms;
}

async function bareFastify() {
  const child = spawn(process.execPath, [BARE], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk.toString('utf8');
      if (/listening on http/.test(out)) resolve(undefined);
    });
  });
  return {
    pid: child.pid,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

function streamDocument() {
  return {
    id: randomUUID(),
    nodes: [
      {
        id: 'gen',
        executable: 'signal-generator',
        config: { sampleRate: 2000, amplitudes: [20], frequencies: [10], channels: 21 },
      },
      { id: 'filter', executable: 'filter', config: { highpass: 1, lowpass: 40, notch: 50, order: 4 } },
      { id: 'ws', executable: 'websocket', config: { port: 0 } },
      { id: 'log', executable: 'logger' },
    ],
    pipes: [
      { id: 'p1', source: 'gen', destination: 'filter' },
      { id: 'p2', source: 'filter', destination: 'ws' },
      { id: 'p3', source: 'filter', destination: 'log' },
    ],
  };
}

export async function runService(report) {
  const results = [];
  const push = (r) => {
    results.push(r);
    report(r);
  };

  const headsetdMs = [];
  const bareMs = [];
  for (let i = 0; i < STARTS; i++) {
    // Interleaved, so that the machine's load weighs on both alike.
    const service = await startService();
    await service.stop();
    bareMs.push(await timeToListen([BARE]));
    const started = performance.now();
    const timed = await startService();
    headsetdMs.push(performance.now() - started);
    await timed.stop();
  }
  push(
    result({
      id: 'service.startup',
      title: 'start-up to the listening line: headsetd vs a bare Fastify server',
      ratio: median(headsetdMs) / median(bareMs),
      ratioOf: 'median ms of headsetd ÷ median ms of bare Fastify',
      max: 3,
      absolute: { headsetdMs: median(headsetdMs), bareFastifyMs: median(bareMs), budgetMs: 400 },
    }),
  );

  const bare = await bareFastify();
  await sleep(SETTLE_MS);
  const bareRss = rssMiB(bare.pid);
  await bare.stop();
  const service = await startService();
  const clients = [];
  try {
    await sleep(SETTLE_MS);
    const idleRss = rssMiB(service.pid);
    push(
      result({
        id: 'service.rss.idle',
        title: 'resident memory of the idle service vs a bare Fastify server',
        ratio: idleRss / bareRss,
        ratioOf: 'RSS of headsetd ÷ RSS of bare Fastify',
        max: Number((90 / bareRss).toFixed(2)),
        absolute: { headsetdMiB: idleRss, bareFastifyMiB: bareRss, budgetMiB: 90 },
      }),
    );
    for (let i = 0; i < 10; i++) {
      const doc = streamDocument();
      await requestJson(service.url, 'POST', '/stream/streams', doc);
      await requestJson(service.url, 'POST', `/stream/streams/${doc.id}/signal`, { signal: 'start' });
      const { body } = await requestJson(service.url, 'GET', `/stream/streams/${doc.id}/status`);
      const port = body.status.nodes.find((n) => n.id === 'ws')?.port;
      const client = new WebSocket(`ws://127.0.0.1:${port}/`);
      client.on('message', () => undefined);
      client.on('error', () => undefined);
      clients.push(client);
    }
    await sleep(SETTLE_MS);
    const loadedRss = rssMiB(service.pid);
    push(
      result({
        id: 'service.rss.streams10',
        title: 'resident memory with 10 streams of 4 built-ins and a reading client each vs idle',
        ratio: loadedRss / idleRss,
        ratioOf: 'RSS with 10 streams ÷ RSS idle',
        max: Number((130 / 90).toFixed(2)),
        absolute: {
          loadedMiB: loadedRss,
          idleMiB: idleRss,
          perStreamMiB: (loadedRss - idleRss) / 10,
          budgetMiB: 130,
        },
      }),
    );
  } finally {
    for (const client of clients) client.terminate();
    await service.stop();
  }
  console.log('   (memory is VmRSS of the main process; its worker threads share it)');
  return results;
}

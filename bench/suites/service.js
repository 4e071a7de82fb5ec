/* global console */
/**
 * The service as a process: start-up to the listening line and resident memory, each against a
 * bare Fastify server with one route (bench/lib/bare-server.mjs fastify) started and measured the same
 * way in the same run.
 *
 * - service.startup: median of STARTS starts of `dist/headsetd.mjs serve` ÷ the same of the bare
 *   server. Budget: 0.4 s on the 2-core development machine, about 3 × its bare Fastify.
 * - service.rss.idle: RSS of the idle service (it keeps one stream worker warm) ÷ the bare server's.
 * - service.rss.streams10: RSS with 10 streams of 4 built-ins (generator 21 ch × 2 kHz → filter
 *   → websocket, plus a logger) and a client reading each websocket ÷ the idle service's RSS.
 * - service.rss.streams100: RSS with 100 streams of generator 8 ch × 250 Hz → websocket ÷ the idle
 *   service's RSS; GET status p99 meanwhile beside it (budgets 250 MiB, 10 ms).
 * - service.api.vs-node, .vs-fastify: with those 10 streams running, GET /stream/streams/{id}/status
 *   at concurrency 20: requests per second of headsetd ÷ those of a bare node:http server and of a
 *   bare Fastify route answering the same bytes, beside the same streams (p50/p99 beside).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { URL } from 'node:url';
import { loadGet, requestJson } from '../lib/http-load.js';
import { median, percentile } from '../lib/measure.js';
import { result } from '../lib/result.js';
import { generatorToWebsocket, startService, startStream } from '../lib/service.js';
import { tenStreams } from '../lib/ten-streams.js';
import { timeToListen } from '../lib/time-to-listen.js';

const STARTS = 7;
const BARE = new URL('../lib/bare-server.mjs', import.meta.url).pathname;
/** Memory is read after this long: workers booted, JIT settled, buffers at their working size. */
const SETTLE_MS = 3000;
/** The API comparison: requests in flight, and requests per phase after a warm-up. */
const API_CONCURRENCY = 20;
const API_REQUESTS = 3000;
const API_WARMUP = 500;
const API_ROUNDS = 3;

/** Requests per second and latency of GET `url` under load, after a warm-up. */
async function loadFigures(url) {
  await loadGet(url, { total: API_WARMUP, concurrency: API_CONCURRENCY });
  const { latencies, failures, seconds } = await loadGet(url, {
    total: API_REQUESTS,
    concurrency: API_CONCURRENCY,
  });
  return {
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    failures,
  };
}

/** Resident memory of a process in MiB (Linux). */
function rssMiB(pid) {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match === null ? Number.NaN : Number(match[1]) / 1024;
}

/** A bare server (`fastify` or `node`), answering `bodyFile`'s bytes on GET /status when given. */
async function bareServer(kind, bodyFile) {
  const child = spawn(process.execPath, [BARE, kind, ...(bodyFile === undefined ? [] : [bodyFile])], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise((resolve) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk.toString('utf8');
      const match = /listening on (http:\/\/[\d.:]+)/.exec(out);
      if (match !== null) resolve(match[1]);
    });
  });
  return {
    url,
    pid: child.pid,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
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
    bareMs.push(await timeToListen([BARE, 'fastify']));
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

  const bare = await bareServer('fastify');
  await sleep(SETTLE_MS);
  const bareRss = rssMiB(bare.pid);
  await bare.stop();
  const service = await startService();
  let streams;
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
    streams = await tenStreams(service);
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
    await apiBeside(service, streams.ids, push);
  } finally {
    streams?.close();
    await service.stop();
  }
  push(await hundredStreams(idleRssOf(results)));
  console.log('   (memory is VmRSS of the main process; its worker threads share it)');
  return results;
}

/** The API beside 10 running streams against bare servers answering the same bytes. */
async function apiBeside(service, streamIds, push) {
  const path = `/stream/streams/${streamIds[0]}/status`;
  const { body } = await requestJson(service.url, 'GET', path);
  const dir = mkdtempSync(join(tmpdir(), 'headsetd-bench-body-'));
  const bodyFile = join(dir, 'status.json');
  writeFileSync(bodyFile, JSON.stringify(body));
  const bare = {};
  const rounds = { headsetd: [], node: [], fastify: [] };
  try {
    for (const kind of ['node', 'fastify']) bare[kind] = await bareServer(kind, bodyFile);
    // Interleaved rounds, so that the machine's drift and the client's own warm-up weigh on all.
    for (let round = 0; round < API_ROUNDS; round++) {
      rounds.headsetd.push(await loadFigures(`${service.url}${path}`));
      rounds.node.push(await loadFigures(`${bare.node.url}/status`));
      rounds.fastify.push(await loadFigures(`${bare.fastify.url}/status`));
    }
  } finally {
    for (const server of Object.values(bare)) await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const summary = (figures) => ({
    perSecond: median(figures.map((f) => f.perSecond)),
    p50: median(figures.map((f) => f.p50)),
    p99: median(figures.map((f) => f.p99)),
    failures: figures.reduce((sum, f) => sum + f.failures, 0),
  });
  const ours = summary(rounds.headsetd);
  const anchors = { node: summary(rounds.node), fastify: summary(rounds.fastify) };
  const absolute = (anchor) => ({
    headsetdPerSecond: ours.perSecond,
    anchorPerSecond: anchor.perSecond,
    headsetdP50Ms: ours.p50,
    headsetdP99Ms: ours.p99,
    anchorP99Ms: anchor.p99,
    failures: ours.failures + anchor.failures,
    budgetP99Ms: 3,
  });
  push(
    result({
      id: 'service.api.vs-node',
      title: 'GET status beside 10 running streams: headsetd vs a bare node:http server, same bytes',
      ratio: ours.perSecond / anchors.node.perSecond,
      ratioOf: 'requests/s of headsetd ÷ of bare node:http (concurrency 20)',
      min: 0.7,
      absolute: absolute(anchors.node),
    }),
  );
  push(
    result({
      id: 'service.api.vs-fastify',
      title: 'GET status beside 10 running streams: headsetd vs a bare Fastify route, same bytes',
      ratio: ours.perSecond / anchors.fastify.perSecond,
      ratioOf: 'requests/s of headsetd ÷ of a bare Fastify route (concurrency 20)',
      min: 0.9,
      absolute: absolute(anchors.fastify),
    }),
  );
}

function idleRssOf(results) {
  return results.find((r) => r.id === 'service.rss.idle')?.absolute.headsetdMiB ?? Number.NaN;
}

/** 100 light streams on one service: memory, and the API's latency beside them. */
async function hundredStreams(idleRss) {
  const service = await startService();
  try {
    let first;
    for (let i = 0; i < 100; i++) {
      const { id } = await startStream(service, generatorToWebsocket(250, 8));
      first ??= id;
    }
    await sleep(SETTLE_MS);
    const rss = rssMiB(service.pid);
    const api = await loadFigures(`${service.url}/stream/streams/${first}/status`);
    return result({
      id: 'service.rss.streams100',
      title: 'resident memory with 100 streams of generator 8 ch × 250 Hz → websocket vs idle',
      ratio: rss / idleRss,
      ratioOf: 'RSS with 100 streams ÷ RSS idle',
      max: Number((250 / 90).toFixed(2)),
      absolute: {
        loadedMiB: rss,
        idleMiB: idleRss,
        perStreamMiB: (rss - idleRss) / 100,
        apiP99Ms: api.p99,
        apiPerSecond: api.perSecond,
        budgetMiB: 250,
        budgetApiP99Ms: 10,
      },
    });
  } finally {
    await service.stop();
  }
}

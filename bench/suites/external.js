/* global console */
/**
 * The external node hop: a frame (21 ch × 20 samples) sent from the runtime to a child process
 * speaking the node protocol in its binary encoding, and back (bench/lib/echo-node.mjs, on the
 * node SDK), through the real adapter (streams/runtime/external/process-node.ts) in this process.
 * - external.hop.paced: round-trip latency at 100 frames/s, p99 (budget 50 µs);
 * - external.hop.unpaced: frames per second through the child, as fast as they go (budget 100 000).
 * The anchor of both: the same frames through an in-process pass-through on the real graph's path
 * would be microseconds, so the reference here is a plain `postMessage` round trip to a worker
 * thread echoing the same frame (the cheapest boundary Node offers), measured in the same run.
 */
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { URL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { createExternalNode } from '../../dist/streams/runtime/external/process-node.js';
import { percentile } from '../lib/measure.js';
import { result } from '../lib/result.js';

const CHANNELS = Array.from({ length: 21 }, (_, c) => `ch${c}`);
const ROWS = 20;
const PACED_FRAMES = 500;
const UNPACED_FRAMES = 20_000;
const IN_FLIGHT = 32;
const ECHO = new URL('../lib/echo-node.mjs', import.meta.url).pathname;

function frame(seq) {
  return Object.freeze({
    seq,
    timestamp: Date.now(),
    sampleRate: 2000,
    channels: CHANNELS,
    data: new Float32Array(ROWS * CHANNELS.length).fill(seq % 7),
  });
}

/** The external node with a context that resolves `arrived(seq)` when the echo comes back. */
async function echoNode() {
  let onEmit = () => undefined;
  const counts = { dropped: 0 };
  const context = {
    streamId: 'bench',
    nodeId: 'echo',
    config: { protocol: 'binary' },
    dataDir: process.cwd(),
    emit: (_port, f) => onEmit(f),
    log: () => undefined,
    fail: (error) => {
      throw error;
    },
    setInfo: () => undefined,
    countDropped: (n) => {
      counts.dropped += n;
    },
    trackProcessGroup: () => undefined,
    untrackProcessGroup: () => undefined,
  };
  const node = createExternalNode(context, [process.execPath, ECHO], {});
  await node.start();
  return {
    node,
    counts,
    setOnEmit(handler) {
      onEmit = handler;
    },
  };
}

/** Round trips to a worker thread echoing each message: the anchor. */
async function workerEcho(send) {
  const worker = new Worker(
    "const { parentPort } = require('node:worker_threads'); parentPort.on('message', (m) => parentPort.postMessage(m));",
    { eval: true },
  );
  await new Promise((resolve) => worker.once('online', resolve));
  try {
    return await send(
      (f) => worker.postMessage(f),
      (handler) => worker.on('message', handler),
    );
  } finally {
    await worker.terminate();
  }
}

/** Paced round trips through `post`: latencies in µs. */
async function paced(post, listen) {
  const latencies = [];
  let sentAt = 0;
  let resolveOne = () => undefined;
  listen(() => {
    latencies.push((performance.now() - sentAt) * 1000);
    resolveOne();
  });
  for (let i = 0; i < PACED_FRAMES; i++) {
    const back = new Promise((resolve) => {
      resolveOne = resolve;
    });
    sentAt = performance.now();
    post(frame(i));
    await back;
    await sleep(10);
  }
  return latencies;
}

/**
 * Frames per second through `post`, as fast as they come back, with up to IN_FLIGHT frames on
 * their way (a window, as a pipe's capacity is: more would only fill the adapter's bounded queue
 * and be dropped, counted by `dropped()`).
 */
async function unpaced(post, listen, dropped = () => 0) {
  const frames = Array.from({ length: 100 }, (_, i) => frame(i));
  let sent = 0;
  let received = 0;
  let done = () => undefined;
  const all = new Promise((resolve) => {
    done = resolve;
  });
  const pump = () => {
    while (sent < UNPACED_FRAMES && sent - received - dropped() < IN_FLIGHT) post(frames[sent++ % 100]);
    if (received + dropped() >= UNPACED_FRAMES) done();
  };
  listen(() => {
    received++;
    pump();
  });
  const started = performance.now();
  pump();
  await Promise.race([all, sleep(30_000)]);
  return { perSecond: received / ((performance.now() - started) / 1000), lost: UNPACED_FRAMES - received };
}

export async function runExternal(report) {
  const echo = await echoNode();
  const post = (f) => echo.node.onFrame('in', f);
  const listen = (handler) => echo.setOnEmit(handler);
  let ours;
  let oursRate;
  try {
    ours = await paced(post, listen);
    oursRate = await unpaced(post, listen, () => echo.counts.dropped);
  } finally {
    await echo.node.stop();
  }
  const anchor = await workerEcho((p, l) => paced(p, l));
  const anchorRate = await workerEcho((p, l) => unpaced(p, l));
  const results = [
    result({
      id: 'external.hop.paced',
      title: `external node round trip, binary protocol, ${ROWS} × ${CHANNELS.length} frames at 100 frames/s, p99`,
      ratio: percentile(ours, 0.99) / percentile(anchor, 0.99),
      ratioOf: 'p99 round trip through the child process ÷ through a worker thread (postMessage)',
      max: 20,
      absolute: {
        p50Us: percentile(ours, 0.5),
        p99Us: percentile(ours, 0.99),
        anchorP99Us: percentile(anchor, 0.99),
        budgetP99Us: 50,
      },
      advisory: true,
    }),
    result({
      id: 'external.hop.unpaced',
      title: `external node throughput, binary protocol, ${ROWS} × ${CHANNELS.length} frames, unpaced`,
      ratio: oursRate.perSecond / anchorRate.perSecond,
      ratioOf: 'frames/s through the child process ÷ through a worker thread (postMessage)',
      min: 0.2,
      absolute: {
        framesPerSecond: oursRate.perSecond,
        framesLost: oursRate.lost,
        anchorFramesPerSecond: anchorRate.perSecond,
        budgetFramesPerSecond: 100_000,
      },
      advisory: true,
    }),
  ];
  for (const r of results) report(r);
  console.log('   (advisory: both sides cross a thread or process boundary, so spare cores weigh on them)');
  return results;
}

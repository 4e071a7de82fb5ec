/**
 * Runtime benchmarks, on the real RunningGraph in-process (the same code a stream's worker runs):
 * - one pipe hop (seal + push + drain turn + deliver) against a plain function call chain;
 * - fan-out to 1/4/16 consumers with frames of 10 and 1000 samples × 19 channels: fan-out hands
 *   the same frozen frame to every consumer, so the cost must grow with consumers, not frame size.
 * Sources emit in batches that fit the pipes (capacity 1024), so nothing is dropped; the drain loop
 * runs on setImmediate turns as in production, and its scheduling cost is part of the hop.
 */
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { RunningGraph } from '../../dist/streams/runtime/running-graph.js';
import { compare, sink } from '../lib/measure.js';
import { result } from '../lib/result.js';

const CHANNELS = 19;
const CAPACITY = 1024;
/** Frames emitted before waiting for delivery: below CAPACITY so no pipe drops. */
const BATCH = 512;
/** The hop benchmark: 8 pass-through nodes and a sink (9 hops), frames of 20 samples × 21 channels. */
const CHAIN_HOPS = 9;
const HOP_CHANNELS = 21;
const HOP_SAMPLES = 20;
/** The budget of one hop, per node per frame (ns). */
const HOP_BUDGET_NS = 1000;

const names = Array.from({ length: CHANNELS }, (_, c) => `ch${c}`);

function makeFrame(samples, channels = CHANNELS) {
  return {
    seq: 0,
    timestamp: Date.now(),
    sampleRate: 1000,
    channels: channels === CHANNELS ? names : Array.from({ length: channels }, (_, c) => `ch${c}`),
    data: new Float32Array(samples * channels),
  };
}

function definition(nodes, pipes) {
  const now = new Date().toISOString();
  return { id: randomUUID(), meta: { created: now, updated: now }, nodes, pipes };
}

/**
 * A started graph: `source` → (pass-through nodes, `chain` of them) → `fanout` sinks.
 * `pump(n)` emits n frames and resolves when every sink has received every one of them.
 */
async function buildGraph({ chain = 0, fanout = 1, samples, channels = CHANNELS }) {
  let sourceContext;
  let delivered = 0;
  let target = 0;
  let wake;
  const factories = {
    source: (context) => {
      sourceContext = context;
      return { start: async () => {}, stop: async () => {} };
    },
    pass: (context) => ({
      start: async () => {},
      onFrame: (_port, frame) => context.emit('out', frame),
      stop: async () => {},
    }),
    sink: () => ({
      start: async () => {},
      onFrame: (_port, frame) => {
        sink.value += frame.seq;
        if (++delivered >= target && wake !== undefined) wake();
      },
      stop: async () => {},
    }),
  };
  const nodes = [{ id: 'src', executable: 'source' }];
  const pipes = [];
  let last = 'src';
  const pipe = (source, destination) =>
    pipes.push({ id: `p${pipes.length}`, source, destination, capacity: CAPACITY });
  for (let i = 0; i < chain; i++) {
    nodes.push({ id: `pass${i}`, executable: 'pass' });
    pipe(last, `pass${i}`);
    last = `pass${i}`;
  }
  for (let i = 0; i < fanout; i++) {
    nodes.push({ id: `sink${i}`, executable: 'sink' });
    pipe(last, `sink${i}`);
  }
  const graph = new RunningGraph({
    streamId: 'bench',
    dataDir: tmpdir(),
    resolveFactory: (node) => Promise.resolve(factories[node.executable]),
  });
  await graph.start(definition(nodes, pipes));
  const frame = makeFrame(samples, channels);
  const pump = async (n) => {
    for (let done = 0; done < n; ) {
      const batch = Math.min(BATCH, n - done);
      target = delivered + batch * fanout;
      const arrived = new Promise((resolve) => {
        wake = resolve;
      });
      for (let k = 0; k < batch; k++) sourceContext.emit('out', frame);
      await arrived;
      wake = undefined;
      done += batch;
    }
  };
  const dropped = () => Object.values(graph.status().pipes).reduce((sum, p) => sum + p.framesDropped, 0);
  return { graph, pump, dropped };
}

/** The reference: the same stages as direct calls through an array of functions. */
function callChain(hops) {
  let count = 0;
  const stages = [];
  stages[hops] = (frame) => {
    count += frame.seq + 1;
  };
  for (let i = hops - 1; i >= 0; i--) {
    const next = stages[i + 1];
    stages[i] = (frame) => next(frame);
  }
  const frame = makeFrame(HOP_SAMPLES, HOP_CHANNELS);
  return (n) => {
    for (let k = 0; k < n; k++) stages[0](frame);
    sink.value += count;
  };
}

async function hop() {
  const chain = await buildGraph({
    chain: CHAIN_HOPS - 1,
    fanout: 1,
    samples: HOP_SAMPLES,
    channels: HOP_CHANNELS,
  });
  const r = await compare(chain.pump, callChain(CHAIN_HOPS), { maxMs: 5000 });
  const dropped = chain.dropped();
  await chain.graph.stop();
  const hopNs = r.subjectNs / CHAIN_HOPS;
  const callNs = r.referenceNs / CHAIN_HOPS;
  return result({
    id: 'runtime.hop',
    title: `engine hop per node per frame (seal + push + drain + deliver), ${CHAIN_HOPS - 1} pass-through nodes and a sink, ${HOP_SAMPLES} × ${HOP_CHANNELS} frames`,
    ratio: hopNs / callNs > 0 ? r.ratio : Number.NaN,
    ratioOf: 'CPU per pipe hop ÷ CPU per plain function call in a call chain',
    // Measured ~90 here (≈ 230 ns vs 2.6 ns; budget 1 µs); 250 leaves room for noise and flags a 3× regression.
    max: 250,
    absolute: { nsPerHop: hopNs, nsPerCall: callNs, budgetNsPerHop: HOP_BUDGET_NS, framesDropped: dropped },
  });
}

async function fanout() {
  const out = [];
  const graphs = {};
  for (const n of [1, 4, 16]) {
    for (const samples of [10, 1000]) graphs[`${n}x${samples}`] = await buildGraph({ fanout: n, samples });
  }
  const base = graphs['1x10'];
  for (const n of [4, 16]) {
    const g = graphs[`${n}x10`];
    const r = await compare(g.pump, base.pump, { maxMs: 3000, rounds: 7 });
    out.push(
      result({
        id: `runtime.fanout.${n}`,
        title: `fan-out of one frame (10 × ${CHANNELS}) to ${n} consumers vs 1`,
        ratio: r.ratio,
        ratioOf: `CPU per emitted frame with ${n} consumers ÷ with 1 consumer`,
        // At most linear in consumers, with room for noise: nothing per frame may be copied per consumer.
        max: n * 1.25,
        absolute: {
          nsPerFrame: r.subjectNs,
          nsPerDelivery: r.subjectNs / n,
          nsPerFrameOneConsumer: r.referenceNs,
        },
      }),
    );
  }
  for (const n of [1, 4, 16]) {
    const big = graphs[`${n}x1000`];
    const small = graphs[`${n}x10`];
    const r = await compare(big.pump, small.pump, { maxMs: 3000, rounds: 7 });
    out.push(
      result({
        id: `runtime.framesize.${n}`,
        title: `fan-out to ${n}: frames of 1000 × ${CHANNELS} vs 10 × ${CHANNELS} samples`,
        ratio: r.ratio,
        ratioOf: 'CPU per emitted frame of 1000 samples ÷ of 10 samples (100× the data)',
        // Shared frames: the cost must not follow the frame size (a copy per hop would make it ~100×).
        max: 1.5,
        absolute: { nsPerFrame1000: r.subjectNs, nsPerFrame10: r.referenceNs },
      }),
    );
  }
  let dropped = 0;
  for (const g of Object.values(graphs)) {
    dropped += g.dropped();
    await g.graph.stop();
  }
  if (dropped > 0)
    throw new Error(`fan-out benchmark dropped ${dropped} frames: the batch exceeds a pipe's capacity`);
  return out;
}

/** Runs the runtime suite; returns its results. */
export async function runRuntime(log) {
  const out = [await hop()];
  log(out[0]);
  for (const r of await fanout()) {
    out.push(r);
    log(r);
  }
  return out;
}

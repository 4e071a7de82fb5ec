/* global console */
/**
 * End-to-end latency of frames, on the real service: a stream of generator 21 ch × 2 kHz →
 * filter (1–40 Hz band-pass + 50 Hz notch) → websocket (JSON frames of ~10 ms), read by 10
 * clients in this process for LISTEN_MS. For each frame a client receives: latency = receipt time
 * − the time of the frame's last sample (both wall-clock times of this machine, to a fraction of a
 * millisecond), and seq gaps are frames lost. A message is stamped when it arrives and parsed on
 * the next turn, after every message that arrived with it has been stamped, so that the clients'
 * own parsing (10 × ~10 KB of JSON) does not count as the service's latency.
 *
 * The anchor, measured the same way in the same run: a bare `ws` server (bench/lib/bare-ws.mjs)
 * sending frames of the same shape and size (21 float32 channels × 20 rows, JSON) every 10 ms,
 * each stamped with the moment it is sent: the transport's own floor. Budgets: p50 ≤ 0.3 ms,
 * p99 ≤ 1 ms, no frame lost.
 *
 * A second anchor, when the machine has liblsl (bench/lib/liblsl-anchor.js): the Lab Streaming
 * Layer's own outlet → inlet latency for chunks of the same shape (21 float32 channels × 20 rows
 * every 10 ms, the last sample stamped when pushed), read by one inlet and by CLIENTS inlet
 * processes, the field's standard transport measured on the same machine in the same run.
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setImmediate } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { URL } from 'node:url';
import WebSocket from 'ws';
import { liblslForBench, lslLatency } from '../lib/liblsl-anchor.js';
import { percentile } from '../lib/measure.js';
import { result } from '../lib/result.js';
import { requestJson } from '../lib/http-load.js';
import { startService, startStream } from '../lib/service.js';

const CLIENTS = 10;
const LISTEN_MS = 10_000;
/** Frames before this are not counted: connections settle, the JIT warms. */
const WARMUP_MS = 2000;
const BARE_WS = new URL('../lib/bare-ws.mjs', import.meta.url).pathname;

const wallNow = () => performance.timeOrigin + performance.now();

/**
 * Connects CLIENTS clients to `port` (or the WebSocket URL `port` is), listens for LISTEN_MS,
 * answers latencies (ms) and frames lost.
 */
async function listen(port) {
  const latencies = [];
  let lost = 0;
  let frames = 0;
  const countFrom = wallNow() + WARMUP_MS;
  const sockets = [];
  for (let i = 0; i < CLIENTS; i++) {
    const socket = new WebSocket(typeof port === 'string' ? port : `ws://127.0.0.1:${port}/`);
    let lastSeq;
    socket.on('message', (data) => {
      const received = wallNow();
      setImmediate(() => {
        const frame = JSON.parse(data.toString());
        const rows = frame.data.length;
        const lastSample = frame.timestamp + ((rows - 1) * 1000) / frame.sampleRate;
        if (received >= countFrom) {
          latencies.push(received - lastSample);
          frames++;
          if (lastSeq !== undefined && frame.seq !== lastSeq + 1)
            lost += Math.max(0, frame.seq - lastSeq - 1);
        }
        lastSeq = frame.seq;
      });
    });
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    sockets.push(socket);
  }
  await sleep(LISTEN_MS + WARMUP_MS);
  for (const socket of sockets) socket.terminate();
  return { latencies, lost, frames };
}

/** The stream measured: generator 21 ch × 2 kHz → filter 1–40 Hz + notch → websocket. */
function generatorFilterWebsocket() {
  return {
    nodes: [
      {
        id: 'gen',
        executable: 'signal-generator',
        config: { sampleRate: 2000, amplitudes: [20], frequencies: [10], channels: 21 },
      },
      { id: 'filter', executable: 'filter', config: { highpass: 1, lowpass: 40, notch: 50 } },
      { id: 'ws', executable: 'websocket', config: { port: 0 } },
    ],
    pipes: [
      { id: 'p1', source: 'gen', destination: 'filter' },
      { id: 'p2', source: 'filter', destination: 'ws' },
    ],
  };
}

async function bareWs() {
  const child = spawn(process.execPath, [BARE_WS], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk.toString('utf8');
      const match = /listening on (\d+)/.exec(out);
      if (match !== null) resolve(Number(match[1]));
    });
  });
  return {
    port,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

/**
 * liblsl's outlet → inlet latency (ms) for the benchmark's frame shape, one inlet and CLIENTS
 * inlets, as `absolute` figures; none (and a line saying why) without a liblsl on the machine.
 */
async function lslAnchor() {
  const found = liblslForBench();
  if (found.lib === undefined) {
    console.log(`   (the liblsl anchor is left out: ${found.missing})`);
    return {};
  }
  const shape = {
    lib: found.lib,
    channels: 21,
    rate: 2000,
    rows: 20,
    seconds: LISTEN_MS / 1000,
    warmup: WARMUP_MS / 1000,
  };
  let one;
  let many;
  try {
    one = await lslLatency({ ...shape, inlets: 1 });
    many = await lslLatency({ ...shape, inlets: CLIENTS });
  } catch (error) {
    // An anchor that fails leaves headsetd's own figures standing, and says why it is missing.
    console.log(`   (the liblsl anchor failed: ${error.message})`);
    return { lslVersion: found.version, lslAnchorError: error.message };
  }
  return {
    lslVersion: found.version,
    lslOneInletP50Ms: percentile(one, 0.5),
    lslOneInletP99Ms: percentile(one, 0.99),
    lslInletsP50Ms: percentile(many, 0.5),
    lslInletsP99Ms: percentile(many, 0.99),
  };
}

/**
 * The bound port of the stream's websocket node. The start answers after 1 s at the latest, and on
 * a busy machine the node may not listen yet: its status is read again until it shows the port.
 */
async function websocketPort(service, id) {
  for (let tries = 0; tries < 200; tries++) {
    const { body } = await requestJson(service.url, 'GET', `/stream/streams/${id}/status`);
    const port = body?.status?.nodes?.find((n) => n.id === 'ws')?.port;
    if (typeof port === 'number' && port > 0) return port;
    await sleep(100);
  }
  throw new Error('the websocket node did not report its port within 20 s');
}

/**
 * The device's other two ways to a WebSocket client, on the simulated headset at 2 kHz (19 EEG
 * channels, frames of ~10 ms): a quick stream (POST /stream/start: eeg-source → filter 1–40 Hz +
 * notch → tap, its clients on /stream/{id}) and the live socket GET /system/sensors/eeg/stream.
 * Each read by CLIENTS clients for LISTEN_MS, with the service's CPU (every thread) over the window.
 */
async function devicePaths() {
  const service = await startService();
  const call = async (method, path, body) => {
    const answer = await requestJson(service.url, method, path, body);
    if (answer.status >= 300)
      throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer;
  };
  const ws = service.url.replace('http://', 'ws://');
  const measured = async (url) => {
    const cpuBefore = service.cpuSeconds();
    const started = performance.now();
    const figures = await listen(url);
    const seconds = (performance.now() - started) / 1000;
    const cpu = service.cpuSeconds();
    return { ...figures, cpuPerSecond: cpu === undefined ? undefined : (cpu - cpuBefore) / seconds };
  };
  try {
    await call('PUT', '/system/sensors/eeg', { samplingFrequency: 2000 });
    const { body } = await call('POST', '/stream/start', {
      sampleRate: 2000,
      filters: { highpass: 1, lowpass: 40, notch: 50 },
    });
    const quick = await measured(`${ws}/stream/${body.streamId}`);
    await call('POST', `/stream/${body.streamId}/stop`, {});
    await call('POST', '/system/sensors/eeg/stream');
    const eeg = await measured(`${ws}/system/sensors/eeg/stream`);
    return { quick, eeg };
  } finally {
    await service.stop();
  }
}

/** A result of one device path beside the bare ws anchor. */
function devicePathResult(id, title, ours, anchor) {
  const p = (figures, q) => percentile(figures.latencies, q);
  return result({
    id,
    title,
    ratio: p(ours, 0.5) / p(anchor, 0.5),
    ratioOf: 'p50 latency (last sample → receipt) of headsetd ÷ of a bare ws sender',
    max: 3,
    advisory: true,
    absolute: {
      p50Ms: p(ours, 0.5),
      p99Ms: p(ours, 0.99),
      maxMs: Math.max(...ours.latencies),
      framesLost: ours.lost,
      framesReceived: ours.frames,
      serviceCpuSecondsPerSecond: ours.cpuPerSecond,
      anchorP50Ms: p(anchor, 0.5),
      anchorP99Ms: p(anchor, 0.99),
    },
  });
}

export async function runLatency(report) {
  const service = await startService();
  let ours;
  try {
    const { id } = await startStream(service, generatorFilterWebsocket());
    ours = await listen(await websocketPort(service, id));
  } finally {
    await service.stop();
  }
  const device = await devicePaths();
  const bare = await bareWs();
  let anchor;
  try {
    anchor = await listen(bare.port);
  } finally {
    await bare.stop();
  }
  const lsl = await lslAnchor();
  const p = (figures, q) => percentile(figures.latencies, q);
  const r = result({
    id: 'latency.e2e',
    title: `end-to-end frame latency, generator 21 ch × 2 kHz → filter → websocket, ${CLIENTS} clients, ${LISTEN_MS / 1000} s`,
    ratio: p(ours, 0.5) / p(anchor, 0.5),
    ratioOf: 'p50 latency (last sample → receipt) of headsetd ÷ of a bare ws sender',
    max: 3,
    budgets: [
      { figure: 'p50Ms', max: 0.3 },
      { figure: 'p99Ms', max: 1 },
    ],
    absolute: {
      p50Ms: p(ours, 0.5),
      p99Ms: p(ours, 0.99),
      maxMs: Math.max(...ours.latencies),
      minMs: Math.min(...ours.latencies),
      framesLost: ours.lost,
      framesReceived: ours.frames,
      anchorP50Ms: p(anchor, 0.5),
      anchorP99Ms: p(anchor, 0.99),
      budgetP50Ms: 0.3,
      budgetP99Ms: 1,
      ...lsl,
    },
  });
  report(r);
  const quick = devicePathResult(
    'latency.quick-stream',
    `end-to-end frame latency, quick stream (simulated headset 19 ch × 2 kHz → filter → tap → /stream/{id}), ${CLIENTS} clients, ${LISTEN_MS / 1000} s`,
    device.quick,
    anchor,
  );
  report(quick);
  const eeg = devicePathResult(
    'latency.eeg-socket',
    `end-to-end frame latency, GET /system/sensors/eeg/stream (simulated headset 19 ch × 2 kHz), ${CLIENTS} clients, ${LISTEN_MS / 1000} s`,
    device.eeg,
    anchor,
  );
  report(eeg);
  console.log('   (latency: receipt in this process minus the last sample time the frame carries)');
  return [r, quick, eeg];
}

/* global console */
/**
 * CPU of one standard pipeline, black-box: the headset's EEG, 21 channels (all of them) →
 * Butterworth 1–40 Hz band-pass + 50 Hz notch → a websocket with one reader, and a BDF+ recorder,
 * at 250 Hz and at `samplingFrequency: 500`, on the real service (`dist/headsetd.mjs`, the default
 * log level, a fresh data directory).
 *
 * Method: the service's process CPU time (user + system, every thread: /proc/PID/stat) over
 * WINDOW_MS with acquisition alone (held by `POST /system/sensors/eeg/stream`, at that rate),
 * then with the stream running, then alone again; the pipeline's cost is the middle window minus
 * the mean of the other two, in CPU seconds per second of EEG (the stream runs in real time).
 * Acquisition and the pipeline each run WARM_MS before their windows (steady state); the
 * pipeline's first window after its start is reported beside, as `firstWindow`.
 *
 * The anchor, in this process, in the same run: the pipeline's floor written plainly here, the
 * least work the pipeline needs per frame of the same shape: filter it with the same coefficients
 * (a plain cascade), encode the websocket's JSON frame, encode the BDF record's 24-bit samples and
 * write and fdatasync them once per second of data. ratio = the service's CPU per second of EEG ÷
 * the floor's. The floor is hot code in a loop; the service pays a socket write per frame and its
 * graph's bookkeeping (docs/performance.md §CPU per stream); the pass mark is the budget (1 % of a
 * core at 250 Hz, 2 % at 500 Hz), written as the ratio it allows in this run. Each rate is measured on the
 * device's frames and with the eeg-source's `frameMs: 40` (`….frame40`, the same pipeline in 40 ms
 * frames, against a floor of 40 ms frames).
 *
 * Beside them, when the machine has liblsl (bench/lib/liblsl-anchor.js): what the Lab Streaming
 * Layer's own outlet spends handing frames of the same shape (21 float32 channels, the same rows
 * per frame and rate) to one inlet, above the same pacing without liblsl: the field's standard
 * transport alone, with no filter, encoding or recording, on the same machine in the same run.
 * And the hand-off floor (bench/lib/paced-floor.mjs `handoff`): the same pacing handing each
 * frame's samples to a Node.js worker thread that only reads them, above the pacing alone: what a
 * stream worked on in a worker of its own (the service's shape until streams that read the device
 * ran in the device's thread, and still a stream's when that thread is busy) costs before any work
 * is done; kept beside as the price the placement saves.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import process from 'node:process';
import { URL } from 'node:url';
import { requestJson } from '../lib/http-load.js';
import { measure, sink } from '../lib/measure.js';
import { result, round } from '../lib/result.js';
import { FLOOR_SPEC, pipelineFloor } from '../lib/pipeline-floor.js';
import { liblslForBench, lslOutletCpu } from '../lib/liblsl-anchor.js';
import { processCpuSeconds, startService } from '../lib/service.js';

const PACED_FLOOR = new URL('../lib/paced-floor.mjs', import.meta.url).pathname;

const WINDOW_MS = 10_000;
const SETTLE_MS = 2_500;
/**
 * How long acquisition, and then the pipeline, run before their measured windows: a pipeline
 * costs most in its first seconds (its worker starting, V8 compiling its code as it runs), which
 * the window right after the start (`firstWindow`, reported beside) includes; the budget is what
 * a running pipeline costs (docs/performance.md §Steady state).
 */
const WARM_MS = 20_000;
const BUDGETS = { 250: 0.01, 500: 0.02 };
/**
 * [rate, eeg-source frameMs]: the pipeline on the device's frames (about 10 ms), and with 40 ms
 * frames (docs/api.md, eeg-source `frameMs`), which pays a frame's fixed costs a quarter as often.
 */
const VARIANTS = [
  [250, undefined],
  [500, undefined],
  [250, 40],
  [500, 40],
];

/**
 * The standard pipeline at `rate` (examples/streams/eeg-filter-websocket-recorder.yaml, 21 ch);
 * with `frameMs`, its eeg-source asks for frames of that duration instead of the device's.
 */
function standardPipeline(rate, frameMs) {
  return {
    id: randomUUID(),
    nodes: [
      {
        id: 'eeg',
        executable: 'eeg-source',
        config: { samplingFrequency: rate, ...(frameMs === undefined ? {} : { frameMs }) },
      },
      { id: 'bandpass', executable: 'filter', config: FLOOR_SPEC },
      { id: 'ws', executable: 'websocket', config: { port: 0 } },
      { id: 'rec', executable: 'recorder', config: { filename: `standard-${rate}.bdf` } },
    ],
    pipes: [
      { id: 'eeg-to-filter', source: 'eeg', destination: 'bandpass' },
      { id: 'filter-to-ws', source: 'bandpass', destination: 'ws' },
      { id: 'filter-to-rec', source: 'bandpass', destination: 'rec', policy: 'block' },
    ],
  };
}

/** CPU seconds per wall second of the service over WINDOW_MS. */
async function cpuShare(service) {
  const before = service.cpuSeconds();
  const started = performance.now();
  await sleep(WINDOW_MS);
  return (service.cpuSeconds() - before) / ((performance.now() - started) / 1000);
}

/** Acquisition alone, the pipeline beside it, acquisition alone again: CPU shares of each. */
async function serviceFigures(rate, frameMs) {
  const service = await startService({ logLevel: null });
  let socket;
  try {
    await requestJson(service.url, 'PUT', '/system/sensors/eeg', { samplingFrequency: rate });
    await requestJson(service.url, 'POST', '/system/sensors/eeg/stream');
    await sleep(SETTLE_MS + WARM_MS);
    const alone = await cpuShare(service);
    const stream = standardPipeline(rate, frameMs);
    await requestJson(service.url, 'POST', '/stream/streams', stream);
    await requestJson(service.url, 'POST', `/stream/streams/${stream.id}/signal`, { signal: 'start' });
    const { body } = await requestJson(service.url, 'GET', `/stream/streams/${stream.id}/status`);
    const port = body.status.nodes.find((n) => n.id === 'ws').port;
    let received = 0;
    socket = new WebSocket(`ws://127.0.0.1:${port}/`);
    socket.on('message', () => {
      received++;
    });
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    await sleep(SETTLE_MS);
    const firstWindow = await cpuShare(service);
    await sleep(WARM_MS);
    const withPipeline = await cpuShare(service);
    await requestJson(service.url, 'POST', `/stream/streams/${stream.id}/signal`, { signal: 'stop' });
    await sleep(SETTLE_MS);
    const aloneAfter = await cpuShare(service);
    return { alone: (alone + aloneAfter) / 2, withPipeline, firstWindow, received };
  } finally {
    socket?.terminate();
    await service.stop();
  }
}

/**
 * The in-process floor: CPU seconds per second of EEG of the pipeline's work per frame
 * (bench/lib/pipeline-floor.js) hot in a loop, in this process: no wake-up, no socket.
 */
async function floorFigures(rate, dir, frameMs = 10) {
  const rows = Math.max(1, Math.round((rate * frameMs) / 1000));
  const fd = openSync(join(dir, `floor-${rate}-${frameMs}.bdf`), 'w');
  const { frame } = pipelineFloor(rate, rows, fd);
  try {
    const { ns } = await measure(
      (n) => {
        for (let i = 0; i < n; i++) sink.value += frame().length;
      },
      { minRoundMs: 100 },
    );
    return (ns * (rate / rows)) / 1e9;
  } finally {
    closeSync(fd);
  }
}

/** CPU seconds per wall second of a paced-floor child in `mode` over WINDOW_MS (a reader attached in `full`). */
async function pacedShare(mode, rate, rows, dir) {
  const child = spawn(
    process.execPath,
    [PACED_FLOOR, mode, String(rate), String(rows), join(dir, `paced-${mode}.bdf`)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let reader;
  try {
    const port = await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += chunk.toString('utf8');
        const match = /listening on (\d+)/.exec(out);
        if (match !== null) resolve(Number(match[1]));
      });
      child.once('exit', (code) => reject(new Error(`the paced floor exited with ${code}`)));
    });
    reader = net.connect(port, '127.0.0.1');
    reader.on('data', () => undefined);
    await sleep(SETTLE_MS);
    const before = processCpuSeconds(child.pid);
    const started = performance.now();
    await sleep(WINDOW_MS);
    return (processCpuSeconds(child.pid) - before) / ((performance.now() - started) / 1000);
  } finally {
    reader?.destroy();
    child.kill('SIGTERM');
  }
}

/**
 * The paced floor: what the pipeline's work adds per second in one plain thread woken every frame
 * period, a socket write per frame included (bench/lib/paced-floor.mjs): `full` − `pace`; and the
 * hand-off floor: what handing each frame to a Node.js worker thread that only reads it adds,
 * `handoff` − `pace` (the least a stream in a worker of its own costs, before any work).
 */
async function pacedFloorFigures(rate, dir, frameMs = 10) {
  const rows = Math.max(1, Math.round((rate * frameMs) / 1000));
  const pace = await pacedShare('pace', rate, rows, dir);
  const full = await pacedShare('full', rate, rows, dir);
  const handoff = await pacedShare('handoff', rate, rows, dir);
  return { paced: Math.max(full - pace, 1e-5), handOff: Math.max(handoff - pace, 0) };
}

/** liblsl's outlet above its pacing for the variant's frames, as `absolute` figures (none without liblsl). */
async function lslFigures(rate, frameMs = 10) {
  const found = liblslForBench();
  if (found.lib === undefined) return {};
  const rows = Math.max(1, Math.round((rate * frameMs) / 1000));
  let above;
  try {
    ({ above } = await lslOutletCpu({
      lib: found.lib,
      channels: 21,
      rate,
      rows,
      seconds: WINDOW_MS / 1000,
    }));
  } catch (error) {
    // An anchor that fails leaves the service's own figures standing, and says why it is missing.
    console.log(`   (the liblsl anchor failed: ${error.message})`);
    return { lslVersion: found.version, lslAnchorError: error.message };
  }
  return { lslVersion: found.version, lslOutletCpuSecondsPerSecond: above };
}

export async function runCpu(report) {
  const results = [];
  const dir = mkdtempSync(join(tmpdir(), 'headsetd-bench-cpu-'));
  const lsl = liblslForBench();
  if (lsl.lib === undefined) console.log(`   (the liblsl anchor is left out: ${lsl.missing})`);
  try {
    for (const [rate, frameMs] of VARIANTS) {
      const service = await serviceFigures(rate, frameMs);
      const floor = await floorFigures(rate, dir, frameMs);
      const { paced, handOff } = await pacedFloorFigures(rate, dir, frameMs);
      const lslAnchor = await lslFigures(rate, frameMs);
      const above = service.withPipeline - service.alone;
      const frames = frameMs === undefined ? '' : `, eeg-source frameMs ${frameMs}`;
      const r = result({
        id: `cpu.standard-pipeline.${rate}${frameMs === undefined ? '' : `.frame${frameMs}`}`,
        title: `CPU of eeg-source 21 ch → filter 1–40 Hz + notch → websocket (one reader) + BDF+ recorder at ${rate} Hz${frames}, above acquisition alone`,
        ratio: above / paced,
        ratioOf:
          "the service's CPU s per s of EEG above acquisition alone ÷ the same work written plainly in one thread paced like the device, measured the same way",
        max: round(BUDGETS[rate] / paced),
        absolute: {
          cpuSecondsPerSecond: above,
          budgetCpuSecondsPerSecond: BUDGETS[rate],
          acquisitionAloneCpuSecondsPerSecond: service.alone,
          withPipelineCpuSecondsPerSecond: service.withPipeline,
          withPipelineFirstWindowCpuSecondsPerSecond: service.firstWindow,
          pacedFloorCpuSecondsPerSecond: paced,
          workerHandOffFloorCpuSecondsPerSecond: handOff,
          inProcessFloorCpuSecondsPerSecond: floor,
          framesReceived: service.received,
          ...lslAnchor,
          ...(lslAnchor.lslOutletCpuSecondsPerSecond === undefined
            ? {}
            : { aboveOverLslOutlet: round(above / lslAnchor.lslOutletCpuSecondsPerSecond) }),
        },
      });
      report(r);
      results.push(r);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    '   (CPU of the service and of the paced floor: /proc/PID/stat over 10 s windows; the in-process floor: this process, CPU time)',
  );
  return results;
}

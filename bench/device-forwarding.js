/* global console */
/**
 * What forwarding the device's frames costs the main thread, per device frame, with 0, 1 and 10
 * streams of eeg-source → websocket on one worker: the real runtime (dist/ of each build named with
 * `--root`, the repository's by default) and the real adapter (`headsetFrameSource`) over a stand-in
 * headset whose frames (21 channels × 3 rows, every 12 ms, as the simulated headset's at 250 Hz)
 * cost next to nothing, so that what is measured is the forwarding, not the device's physics.
 * The main thread's CPU is its own task's /proc/self/task/PID/schedstat over WINDOW_S seconds;
 * 0 streams is the timer alone. Each build is measured in turn, `--rounds` times.
 *
 * `--burst` leaves the timer and its wake-ups out: BURST frames are handed to the adapter's
 * listeners in groups of 10 (a pause of FRAME_MS × 10 between groups lets the worker keep up), and
 * only the main thread's CPU inside those calls is counted: the forwarding alone, per device frame.
 *
 *   node bench/device-forwarding.js [--root /path/to/old/checkout ...] [--rounds 2] [--streams 0,1,10] [--burst]
 */
import process from 'node:process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { URL, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { clearInterval, setInterval } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';

const WINDOW_S = 15;
const WARM_UP_S = 2;
const FRAME_MS = 12;
const ROWS = 3;
const BURST = 3000;
// The headset's 21 electrodes as frames name them, from this checkout's build (core/electrodes.ts).
const { ELECTRODES, channelName } = await import(new URL('../dist/core/electrodes.js', import.meta.url).href);
const NAMES = Object.freeze(ELECTRODES.map(channelName));

const { values } = parseArgs({
  options: {
    root: { type: 'string', multiple: true },
    rounds: { type: 'string', default: '2' },
    streams: { type: 'string', default: '0,1,10' },
    burst: { type: 'boolean', default: false },
  },
});

function mainThreadCpuSeconds() {
  return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e9;
}

/**
 * A headset as the adapter reads it: every channel acquired, frames from a timer while held, on
 * this (the main) thread, as a live amplifier's; `framePortOf` (core/frame-wire.js) is the build's
 * writer of frame ports from listeners, absent in builds before frame ports.
 */
function standInHeadset(framePortOf) {
  const frameListeners = new Set();
  let timer;
  let seq = 0;
  let frames = 0;
  const owners = new Set();
  const emit = () => {
    const data = new Float32Array(ROWS * NAMES.length);
    for (let i = 0; i < data.length; i++) data[i] = Math.sin(seq + i);
    const frame = { seq, timestamp: Date.now(), sampleRate: 250, channels: NAMES, data };
    seq++;
    frames++;
    for (const listener of frameListeners) listener(frame);
  };
  const headset = {
    onEvent: () => () => undefined,
    eeg: {
      channels: () => NAMES.map((name) => ({ name })),
      channelList: (names) => names.map((n) => n.toUpperCase()),
      acquiredChannels: () => NAMES.map((n) => n.toUpperCase()),
      state: () => ({ owners: [...owners] }),
      onFrame(listener) {
        frameListeners.add(listener);
        return () => frameListeners.delete(listener);
      },
      ...(framePortOf === undefined ? {} : { framePort: () => framePortOf((l) => headset.eeg.onFrame(l)) }),
      start(owner) {
        owners.add(owner);
        if (!values.burst) timer ??= setInterval(emit, FRAME_MS);
        return Promise.resolve();
      },
      stop(owner) {
        owners.delete(owner);
        if (owners.size === 0) {
          clearInterval(timer);
          timer = undefined;
        }
        return Promise.resolve();
      },
    },
  };
  return { headset, frames: () => frames, emit };
}

function eegToWebsocket() {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    meta: { created: now, updated: now },
    nodes: [
      { id: 'eeg', executable: 'eeg-source', config: {} },
      { id: 'ws', executable: 'websocket', config: { port: 0 } },
    ],
    pipes: [{ id: 'p', source: 'eeg', destination: 'ws' }],
  };
}

async function measure(root, streams) {
  const dist = (path) => pathToFileURL(join(root, 'dist', path)).href;
  const { WorkerRuntime } = await import(dist('streams/runtime/worker-runtime.js'));
  const { STREAM_HOST_ENTRY } = await import(dist('streams/executables/stream-host-entry.js'));
  const { headsetFrameSource } = await import(dist('device/sources/frame-source.js'));
  const { framePortOf } = await import(dist('core/frame-wire.js')).catch(() => ({}));
  const { headset, frames, emit } = standInHeadset(framePortOf);
  const dataDir = mkdtempSync(join(tmpdir(), 'headsetd-bench-forwarding-'));
  const runtime = new WorkerRuntime({
    workerEntry: STREAM_HOST_ENTRY,
    dataDir,
    executablesDirs: [],
    device: headsetFrameSource(headset),
    workers: 1,
  });
  // Without a stream the device runs on its own: the timer alone.
  if (streams === 0) await headset.eeg.start('client');
  try {
    for (let i = 0; i < streams; i++) await runtime.start(eegToWebsocket());
    await sleep(WARM_UP_S * 1000);
    if (values.burst) {
      let cpu = 0;
      for (let group = 0; group < BURST / 10; group++) {
        const before = mainThreadCpuSeconds();
        for (let k = 0; k < 10; k++) emit();
        cpu += mainThreadCpuSeconds() - before;
        await sleep(FRAME_MS * 10);
      }
      // No share of a core: the frames come in bursts, not at the device's rate.
      return { cpuPercent: undefined, usPerFrame: (1e6 * cpu) / BURST, count: BURST };
    }
    const cpu0 = mainThreadCpuSeconds();
    const frames0 = frames();
    await sleep(WINDOW_S * 1000);
    const cpu = mainThreadCpuSeconds() - cpu0;
    const count = frames() - frames0;
    return { cpuPercent: (100 * cpu) / WINDOW_S, usPerFrame: (1e6 * cpu) / count, count };
  } finally {
    await headset.eeg.stop('client');
    await runtime.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const roots = values.root ?? [new URL('..', import.meta.url).pathname];
const counts = values.streams.split(',').map(Number);
for (let round = 1; round <= Number(values.rounds); round++) {
  for (const streams of counts) {
    for (const root of roots) {
      const r = await measure(root, streams);
      console.log(
        `round ${round} ${root}: ${streams} stream(s), ${r.count} device frames${values.burst ? ' in bursts' : ''}: main thread ${r.cpuPercent === undefined ? '' : `${r.cpuPercent.toFixed(2)} % of a core, `}${r.usPerFrame.toFixed(1)} µs per device frame`,
      );
    }
  }
}
process.exit(0);

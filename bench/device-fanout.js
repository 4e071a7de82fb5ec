/* global console */
/**
 * The main thread's CPU per device frame with 1 and 10 streams of eeg-source → websocket on one
 * worker (`serve --workers 1`), each websocket read by a client: what the device's frames cost the
 * API's thread per stream (docs/performance.md §The device's frames on the main thread).
 *
 * The main thread's CPU is its own task's /proc/PID/task/PID/schedstat (nanoseconds on a CPU), over
 * a window of WINDOW_S seconds after a warm-up; the device's frames are counted by one of the
 * clients over the same window (eeg-source → websocket sends each device frame as it comes). Each
 * build named (HEADSETD_BENCH_CLI of bench/lib/service.js, or several with `--cli A --cli B`) is
 * measured in turn, `--rounds` times (2 by default), so that before and after see the same machine.
 *
 * `--frame-ms 40` gives the eeg-sources that `frameMs` (the figures are then per joined frame).
 *
 *   node bench/device-fanout.js [--cli dist/headsetd.mjs ...] [--rounds 2] [--streams 1,10] [--frame-ms 40]
 */
import process from 'node:process';
import { URL } from 'node:url';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';

const WINDOW_S = 20;
const WARM_UP_S = 3;

const { values } = parseArgs({
  options: {
    cli: { type: 'string', multiple: true },
    rounds: { type: 'string', default: '2' },
    streams: { type: 'string', default: '1,10' },
    'frame-ms': { type: 'string' },
  },
});

function mainThreadCpuSeconds(pid) {
  return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e9;
}

function eegToWebsocket() {
  return {
    nodes: [
      {
        id: 'eeg',
        executable: 'eeg-source',
        config: {
          samplingFrequency: 250,
          ...(values['frame-ms'] === undefined ? {} : { frameMs: Number(values['frame-ms']) }),
        },
      },
      { id: 'ws', executable: 'websocket', config: { port: 0 } },
    ],
    pipes: [{ id: 'p', source: 'eeg', destination: 'ws' }],
  };
}

/** The websocket node's port, once the stream's start has placed it (a start may answer first). */
async function websocketPort(service, id) {
  const { requestJson } = await import('./lib/http-load.js');
  for (let tries = 0; tries < 100; tries++) {
    const { body } = await requestJson(service.url, 'GET', `/stream/streams/${id}/status`);
    const port = body.status?.nodes.find((n) => n.id === 'ws')?.port;
    if (port !== undefined) return port;
    await sleep(100);
  }
  throw new Error(`stream ${id} did not open its websocket port`);
}

async function measure(cli, streams) {
  process.env.HEADSETD_BENCH_CLI = cli;
  // Imported after the variable is set: the module reads it once.
  const { startService, startStream } = await import(`./lib/service.js?cli=${encodeURIComponent(cli)}`);
  const service = await startService({ serveOptions: ['--workers', '1'] });
  const clients = [];
  try {
    const counts = [];
    for (let i = 0; i < streams; i++) {
      const { id } = await startStream(service, eegToWebsocket());
      const port = await websocketPort(service, id);
      const client = new WebSocket(`ws://127.0.0.1:${port}/`);
      counts.push(0);
      client.on('message', () => counts[i]++);
      client.on('error', () => undefined);
      clients.push(client);
    }
    await sleep(WARM_UP_S * 1000);
    const cpu0 = mainThreadCpuSeconds(service.pid);
    const all0 = service.cpuSeconds();
    const frames0 = [...counts];
    await sleep(WINDOW_S * 1000);
    const main = mainThreadCpuSeconds(service.pid) - cpu0;
    const all = service.cpuSeconds() - all0;
    const received = counts.map((n, i) => n - (frames0[i] ?? 0));
    const count = received[0] ?? 0;
    // Every stream must have had every frame, or the figure is not of N streams.
    if (received.some((n) => Math.abs(n - count) > 2))
      throw new Error(`streams fell behind: ${received.join(', ')}`);
    return {
      streams,
      deviceFrames: count,
      mainCpuPercent: (100 * main) / WINDOW_S,
      mainUsPerFrame: (1e6 * main) / count,
      processCpuPercent: (100 * all) / WINDOW_S,
    };
  } finally {
    for (const client of clients) client.terminate();
    await service.stop();
  }
}

const clis = values.cli ?? [
  process.env.HEADSETD_BENCH_CLI ?? new URL('../dist/headsetd.mjs', import.meta.url).pathname,
];
const counts = values.streams.split(',').map(Number);
for (let round = 1; round <= Number(values.rounds); round++) {
  for (const streams of counts) {
    for (const cli of clis) {
      const r = await measure(cli, streams);
      console.log(
        `round ${round} ${cli}: ${r.streams} stream(s), ${r.deviceFrames} frames in ${WINDOW_S} s: main thread ${r.mainCpuPercent.toFixed(2)} % of a core, ${r.mainUsPerFrame.toFixed(1)} µs per device frame; process ${r.processCpuPercent.toFixed(2)} %`,
      );
    }
  }
}

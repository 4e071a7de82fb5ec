/**
 * api.thread-wakeups.ten-streams: how often the API's thread (the service's main thread) is woken,
 * with 10 streams of the device's EEG (eeg-source → filter 1–40 Hz + notch → websocket, each read by
 * a client) against the same service with no stream and no acquisition, on the real service
 * (`dist/headsetd.mjs`, simulated headset at 250 Hz, default logging, a fresh data directory).
 *
 * Method: the main thread's run count (the third field of /proc/PID/task/PID/schedstat: the times
 * the scheduler put it on a CPU, so every wake-up) over WINDOW_MS, after SETTLE_MS, in three
 * phases: the idle service, acquisition alone (held by `POST /system/sensors/eeg/stream`), and the
 * 10 streams. ratio = wake-ups per second with the streams ÷ idle; budget ≤ 1 (the streams' frames
 * and statuses wake the API's thread not at all). Each phase also gives the device's and the
 * workers' threads, for context.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { requestJson } from '../lib/http-load.js';
import { result } from '../lib/result.js';
import { startService, startStream } from '../lib/service.js';

const WINDOW_MS = 10_000;
const SETTLE_MS = 3_000;

/** Each thread's run count and CPU ns, by thread id. */
function threads(pid) {
  const out = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const [ns, , runs] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').trim().split(' ');
      out.set(Number(tid), { runs: Number(runs), ns: Number(ns) });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

/** Wake-ups per second of the main thread and of the busiest other threads over a window. */
async function window(pid) {
  const before = threads(pid);
  const started = performance.now();
  await sleep(WINDOW_MS);
  const after = threads(pid);
  const seconds = (performance.now() - started) / 1000;
  const rates = [...after]
    .filter(([tid]) => before.has(tid))
    .map(([tid, { runs, ns }]) => ({
      tid,
      perSecond: (runs - before.get(tid).runs) / seconds,
      cpuPercent: ((ns - before.get(tid).ns) / 1e9 / seconds) * 100,
    }));
  const main = rates.find((r) => r.tid === pid);
  const others = rates
    .filter((r) => r.tid !== pid && r.perSecond >= 1)
    .sort((a, b) => b.perSecond - a.perSecond);
  return { main, others };
}

function deviceStream() {
  return {
    nodes: [
      { id: 'eeg', executable: 'eeg-source', config: {} },
      { id: 'filter', executable: 'filter', config: { highpass: 1, lowpass: 40, notch: 50, order: 4 } },
      { id: 'ws', executable: 'websocket', config: { port: 0 } },
    ],
    pipes: [
      { id: 'p1', source: 'eeg', destination: 'filter' },
      { id: 'p2', source: 'filter', destination: 'ws' },
    ],
  };
}

export async function runWakeups(report) {
  const service = await startService({ logLevel: null });
  const clients = [];
  try {
    await sleep(SETTLE_MS);
    const idle = await window(service.pid);
    await requestJson(service.url, 'POST', '/system/sensors/eeg/stream');
    await sleep(SETTLE_MS);
    const acquiring = await window(service.pid);
    await requestJson(service.url, 'DELETE', '/system/sensors/eeg/stream');
    for (let i = 0; i < 10; i++) {
      const { status } = await startStream(service, deviceStream());
      const port = status.nodes.find((n) => n.id === 'ws')?.port;
      const client = new WebSocket(`ws://127.0.0.1:${port}/`);
      client.on('message', () => undefined);
      client.on('error', () => undefined);
      clients.push(client);
    }
    await sleep(SETTLE_MS);
    const streams = await window(service.pid);
    const others = (phase) =>
      phase.others.map((o) => `${o.perSecond.toFixed(0)}/s ${o.cpuPercent.toFixed(2)} %`).join(', ');
    const r = result({
      id: 'api.thread-wakeups.ten-streams',
      title: "The API thread's wake-ups per second with 10 streams of the device's EEG vs an idle service",
      ratio: streams.main.perSecond / idle.main.perSecond,
      ratioOf:
        "main thread's runs per second (schedstat) with 10 eeg-source → filter → websocket streams ÷ idle",
      max: 1,
      absolute: {
        idlePerSecond: idle.main.perSecond,
        acquisitionAlonePerSecond: acquiring.main.perSecond,
        tenStreamsPerSecond: streams.main.perSecond,
        idleMainCpuPercent: idle.main.cpuPercent,
        tenStreamsMainCpuPercent: streams.main.cpuPercent,
        tenStreamsOtherThreads: others(streams),
      },
    });
    report(r);
    return [r];
  } finally {
    for (const client of clients) client.terminate();
    await service.stop();
  }
}

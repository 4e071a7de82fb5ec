/**
 * api.thread-wakeups.ten-streams: how often the API's thread (the service's main thread) is woken,
 * with 10 streams of the device's EEG (eeg-source → filter 1–40 Hz + notch → websocket, each read by
 * a client) against the same service with no stream and no acquisition, on the real service
 * (`dist/headsetd.mjs`, simulated headset at 250 Hz, default logging, a fresh data directory).
 *
 * Method: the main thread's run count (the third field of /proc/PID/task/PID/schedstat: the times
 * the scheduler put it on a CPU), after SETTLE_MS, in three phases: the idle service, acquisition
 * alone (held by `POST /system/sensors/eeg/stream`), and the 10 streams. A wake-up is a run less
 * those that were the thread's return after a preemption (`nonvoluntary_ctxt_switches` of
 * /proc/PID/task/PID/status): a preempted thread was not woken, it waited for a CPU, and on a
 * loaded 2-core machine its preemptions grow with whatever else runs (the streams' own threads
 * among it) while saying nothing of what wakes it.
 *
 * Each phase is SLICES consecutive slices of SLICE_MS, and the ratio compares the phases' typical
 * slice: the median of the main thread's wake-ups per slice, with the streams ÷ idle; budget ≤ 1
 * (the streams' frames, statuses and supervision add no periodic wake-up of the API's thread). The
 * median is what wakes the thread in most slices (its timers, and anything a stream makes periodic
 * at a period up to SLICE_MS). What comes now and then in either phase would otherwise decide a
 * comparison of ~2 wake-ups a second whose alike phases differ by one wake-up in 10 s: a V8 task
 * or a garbage collection joining its helper threads (a few a minute, more in the seconds after
 * the start), and two timers of one period that fall due in the same millisecond for a while and
 * wake the thread once between them. The mean rates over each whole phase, the runs and the
 * preemptions are given beside, and each phase's device and worker threads, for context.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { requestJson } from '../lib/http-load.js';
import { result } from '../lib/result.js';
import { startService, startStream } from '../lib/service.js';

const SLICE_MS = 3_000;
const SLICES = 5;
const SETTLE_MS = 3_000;

/** A thread's preemptions so far: `nonvoluntary_ctxt_switches` of its /proc status. */
function preemptions(pid, tid) {
  const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
  return Number(/^nonvoluntary_ctxt_switches:\s*(\d+)/m.exec(status)?.[1] ?? Number.NaN);
}

/** Each thread's run count, preemptions and CPU ns, by thread id. */
function threads(pid) {
  const out = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const [ns, , runs] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').trim().split(' ');
      out.set(Number(tid), { runs: Number(runs), preempted: preemptions(pid, tid), ns: Number(ns) });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

/** A thread's wake-ups so far: its runs less its preemptions. */
function wakeups(pid, tid) {
  const runs = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').trim().split(' ')[2]);
  return runs - preemptions(pid, tid);
}

/**
 * One phase: the main thread's wake-ups in each of SLICES slices of SLICE_MS (an odd number: the
 * median is one of them), and the mean rates
 * of the main thread and of the busiest other threads over the whole phase.
 */
async function window(pid) {
  const before = threads(pid);
  const started = performance.now();
  const slices = [];
  let last = wakeups(pid, pid);
  for (let i = 0; i < SLICES; i++) {
    await sleep(SLICE_MS);
    const now = wakeups(pid, pid);
    slices.push(now - last);
    last = now;
  }
  const after = threads(pid);
  const seconds = (performance.now() - started) / 1000;
  const rates = [...after]
    .filter(([tid]) => before.has(tid))
    .map(([tid, { runs, preempted, ns }]) => {
      const was = before.get(tid);
      const runsPerSecond = (runs - was.runs) / seconds;
      const preemptedPerSecond = (preempted - was.preempted) / seconds;
      return {
        tid,
        runsPerSecond,
        preemptedPerSecond,
        perSecond: runsPerSecond - preemptedPerSecond,
        cpuPercent: ((ns - was.ns) / 1e9 / seconds) * 100,
      };
    });
  const main = rates.find((r) => r.tid === pid);
  const others = rates
    .filter((r) => r.tid !== pid && r.perSecond >= 1)
    .sort((a, b) => b.perSecond - a.perSecond);
  const sorted = [...slices].sort((a, b) => a - b);
  return { main, others, slices, medianPerSecond: sorted[Math.floor(SLICES / 2)] / (SLICE_MS / 1000) };
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
      ratio: streams.medianPerSecond / idle.medianPerSecond,
      ratioOf: `main thread's wake-ups per second (schedstat's runs less preemptions), the median of ${SLICES} slices of ${SLICE_MS / 1000} s, with 10 eeg-source → filter → websocket streams ÷ idle`,
      max: 1,
      absolute: {
        idleMedianPerSecond: idle.medianPerSecond,
        acquisitionAloneMedianPerSecond: acquiring.medianPerSecond,
        tenStreamsMedianPerSecond: streams.medianPerSecond,
        idleSlices: idle.slices.join(' '),
        tenStreamsSlices: streams.slices.join(' '),
        idlePerSecond: idle.main.perSecond,
        acquisitionAlonePerSecond: acquiring.main.perSecond,
        tenStreamsPerSecond: streams.main.perSecond,
        idleRunsPerSecond: idle.main.runsPerSecond,
        tenStreamsRunsPerSecond: streams.main.runsPerSecond,
        idlePreemptedPerSecond: idle.main.preemptedPerSecond,
        tenStreamsPreemptedPerSecond: streams.main.preemptedPerSecond,
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

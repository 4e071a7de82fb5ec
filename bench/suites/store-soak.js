/**
 * store.soak.event-loop: the API thread's event-loop delay (`monitorEventLoopDelay`, resolution
 * 1 ms, loaded into the service with `--import bench/lib/eld-probe.mjs`) during a soak: 10 streams
 * with a reader each (bench/lib/ten-streams.js), GET /system/status polled by two clients every
 * 10 ms, and what writes to the store regularly: a continuous impedance session (a reading stored
 * every 100 ms) and a client that creates, starts, stops and deletes a stream in a loop (four
 * acknowledged commits each). The reference is the same service in the same run with the streams
 * and the polling only (PHASE_MS before the writers start). Ratio: p99 with the writers ÷ p99
 * without; the budget is p99 ≤ 5 ms with the writers (absolute, beside the ratio).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { URL } from 'node:url';
import { requestJson } from '../lib/http-load.js';
import { result } from '../lib/result.js';
import { generatorToWebsocket, startService } from '../lib/service.js';
import { tenStreams } from '../lib/ten-streams.js';

const PROBE = new URL('../lib/eld-probe.mjs', import.meta.url).pathname;
const PHASE_MS = 10_000;

/** The probe's figures since the previous call (SIGUSR2 writes them and starts again). */
async function delaySince(pid, file) {
  rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 100; i++) {
    try {
      return JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      await sleep(20);
    }
  }
  throw new Error('the event-loop probe did not answer');
}

/** Runs `step` in a loop until `running()` is false. */
async function loop(running, step) {
  while (running()) await step();
}

export async function runStoreSoak(report) {
  const dir = mkdtempSync(join(tmpdir(), 'headsetd-bench-eld-'));
  const file = join(dir, 'eld.json');
  process.env.HEADSETD_BENCH_ELD_FILE = file;
  const service = await startService({ nodeOptions: ['--import', PROBE], logLevel: null });
  let streams;
  let polling = true;
  const pollers = [];
  try {
    streams = await tenStreams(service);
    for (let i = 0; i < 2; i++) {
      pollers.push(
        loop(
          () => polling,
          async () => {
            await requestJson(service.url, 'GET', '/system/status');
            await sleep(10);
          },
        ),
      );
    }
    await sleep(2000);
    await delaySince(service.pid, file);
    await sleep(PHASE_MS);
    const quiet = await delaySince(service.pid, file);

    let writing = true;
    const started = await requestJson(service.url, 'POST', '/electrodes/impedance/start', {
      continuous: true,
      updateInterval: 100,
    });
    let cycles = 0;
    const churner = loop(
      () => writing,
      async () => {
        const id = randomUUID();
        await requestJson(service.url, 'POST', '/stream/streams', { id, ...generatorToWebsocket(250, 8) });
        await requestJson(service.url, 'POST', `/stream/streams/${id}/signal`, { signal: 'start' });
        await requestJson(service.url, 'POST', `/stream/streams/${id}/signal`, { signal: 'stop' });
        await requestJson(service.url, 'DELETE', `/stream/streams/${id}`);
        cycles++;
      },
    );
    await delaySince(service.pid, file);
    await sleep(PHASE_MS);
    const soak = await delaySince(service.pid, file);
    writing = false;
    await churner;
    await requestJson(service.url, 'POST', '/electrodes/impedance/stop', {});
    const r = result({
      id: 'store.soak.event-loop',
      title:
        "the API thread's event-loop delay p99 with the store's regular writers vs without (10 streams, status polled)",
      ratio: soak.p99 / quiet.p99,
      ratioOf:
        'p99 event-loop delay with impedance readings + stream churn ÷ p99 with streams and polling only',
      max: 2,
      budgets: [{ figure: 'soakP99Ms', max: 5 }],
      absolute: {
        soakP50Ms: soak.p50,
        soakP99Ms: soak.p99,
        soakMaxMs: soak.max,
        quietP99Ms: quiet.p99,
        quietMaxMs: quiet.max,
        churnCycles: cycles,
        impedanceStarted: started.status,
        budgetP99Ms: 5,
      },
    });
    report(r);
    return [r];
  } finally {
    polling = false;
    await Promise.allSettled(pollers);
    streams?.close();
    await service.stop();
    delete process.env.HEADSETD_BENCH_ELD_FILE;
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * GET /system/status keeps its answer between polls (for at most a millisecond by default,
 * src/api/polled-answer.ts), and never across a change. The service here keeps it for a minute,
 * so that only the invalidation can make a poll see a change: each check polls the status first
 * (so an answer is kept), changes the device through the API, and polls again: the second answer
 * must show the change.
 */
import { rmSync } from 'node:fs';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/service/config.js';
import { type RunningServer, startServer } from '../../src/service/server.js';
import { FakeRuntime } from '../support/fake-runtime.js';
import { sendJson } from '../support/service.js';
import { STREAM_HOST } from '../support/stream-host.js';
import { scratchDir } from '../support/scratch.js';

let server: RunningServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = scratchDir('headsetd-status-polled');
  server = await startServer({
    workerEntry: STREAM_HOST,
    settings: { ...DEFAULTS, port: 0, host: '127.0.0.1', dataDir },
    logger: pino({ level: 'silent' }),
    runtime: new FakeRuntime(),
    statusMaxAgeMs: 60_000,
  });
});

afterAll(async () => {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Status {
  eeg: { streaming: boolean; owners: string[]; config: { samplingFrequency: number } };
  motors: { moving: string[] };
}

async function status(): Promise<Status> {
  const response = await fetch(`${server.url}/system/status`);
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  return ((await response.json()) as { status: Status }).status;
}

async function send(method: string, url: string, body?: unknown): Promise<void> {
  const answer = await sendJson(method, `${server.url}${url}`, body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
}

describe('GET /system/status between polls', () => {
  it('serves the answer it made while nothing changed (the uptime moves only with a new answer)', async () => {
    const first = (await (await fetch(`${server.url}/system/status`)).json()) as {
      status: { uptimeSeconds: number };
    };
    await new Promise((resolve) => setTimeout(resolve, 250));
    const second = (await (await fetch(`${server.url}/system/status`)).json()) as typeof first;
    expect(second.status.uptimeSeconds).toBe(first.status.uptimeSeconds);
  });

  it('shows a configuration change answered just before, every time', async () => {
    for (let i = 0; i < 20; i++) {
      const rate = i % 2 === 0 ? 500 : 250;
      await status();
      await send('PUT', '/system/sensors/eeg', { samplingFrequency: rate });
      expect((await status()).eeg.config.samplingFrequency).toBe(rate);
    }
  });

  it('shows acquisition held and released by the client hold at once', async () => {
    for (let i = 0; i < 5; i++) {
      await status();
      await send('POST', '/system/sensors/eeg/stream');
      expect((await status()).eeg.streaming).toBe(true);
      await send('DELETE', '/system/sensors/eeg/stream');
      expect((await status()).eeg.streaming).toBe(false);
    }
  });

  it('shows a motor move started just before', async () => {
    await status();
    await send('POST', '/system/motors/position', {
      configuration: [{ electrode: 'O1', movement: 'RELEASE', displacement: 10 }],
    });
    expect((await status()).motors.moving).toContain('O1');
  });

  it('shows what the device changed without a request, when the device says so (an event)', async () => {
    await status();
    await server.device.eeg.start('streams');
    expect((await status()).eeg.owners).toContain('streams');
    await server.device.eeg.stop('streams');
    expect((await status()).eeg.streaming).toBe(false);
  });
});

/**
 * The outbound allow-list as the service is configured (quick streams' pipes and osc nodes):
 * loopback by default, and the hosts of --pipe-allow-host (HEADSETD_PIPE_ALLOW_HOST,
 * `pipeAllowedHosts`) besides. 127.0.0.2 is a loopback address outside the default list, so the
 * test never sends anything off this machine.
 */
import { rmSync } from 'node:fs';
import pino from 'pino';
import { afterEach, expect, test } from 'vitest';
import { DEFAULTS, loadSettings } from '../../src/service/config.js';
import { type RunningServer, startServer } from '../../src/service/server.js';
import { FakeRuntime } from '../support/fake-runtime.js';
import { STREAM_HOST } from '../support/stream-host.js';
import { scratchDir } from '../support/scratch.js';

let server: RunningServer | undefined;
let dataDir: string | undefined;
afterEach(async () => {
  await server?.close();
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  server = undefined;
  dataDir = undefined;
});

async function pipeTo(pipeAllowedHosts: string[], host: string) {
  dataDir = scratchDir('headsetd-pipe-hosts');
  server = await startServer({
    workerEntry: STREAM_HOST,
    settings: { ...DEFAULTS, port: 0, dataDir, pipeAllowedHosts },
    logger: pino({ level: 'silent' }),
    runtime: new FakeRuntime(),
  });
  const started = await server.app.inject({
    method: 'POST',
    url: '/stream/start',
    payload: { channels: ['Cz'] },
  });
  expect(started.statusCode).toBe(200);
  const id = started.json<{ streamId: string }>().streamId;
  return server.app.inject({
    method: 'POST',
    url: `/stream/${id}/pipe`,
    payload: { target: { host, port: 9, streamId: '0d9a7c1e-2b3f-4a5b-8c6d-7e8f9a0b1c2d' } },
  });
}

test('a host outside loopback names is refused by default', async () => {
  const answer = await pipeTo([], '127.0.0.2');
  expect(answer.statusCode).toBe(403);
  expect(answer.json()).toMatchObject({ success: false, error: { code: 'forbidden_origin' } });
});

test('--pipe-allow-host admits a host', async () => {
  const answer = await pipeTo(['127.0.0.2'], '127.0.0.2');
  expect(answer.statusCode).toBe(200);
});

test('the setting comes from the flag, the environment or the settings file, as a list', () => {
  expect(loadSettings({ 'pipe-allow-host': ['a.local', 'b.local'] }, {}).pipeAllowedHosts).toEqual([
    'a.local',
    'b.local',
  ]);
  expect(loadSettings({}, { HEADSETD_PIPE_ALLOW_HOST: 'a.local,b.local' }).pipeAllowedHosts).toEqual([
    'a.local',
    'b.local',
  ]);
});

/** Creates a stream whose osc node sends to `host`, on a service with this allow-list. */
async function createOscStream(pipeAllowedHosts: string[], host: string | undefined) {
  dataDir = scratchDir('headsetd-osc-hosts');
  server = await startServer({
    workerEntry: STREAM_HOST,
    settings: { ...DEFAULTS, port: 0, dataDir, pipeAllowedHosts },
    logger: pino({ level: 'silent' }),
    runtime: new FakeRuntime(),
  });
  return server.app.inject({
    method: 'POST',
    url: '/stream/streams',
    payload: {
      id: '5b0c7a52-7f1e-4c8e-9d2a-3c4b5a6d7e8f',
      meta: { name: 'osc' },
      nodes: [
        {
          id: 'gen',
          executable: 'signal-generator',
          config: { sampleRate: 250, amplitudes: [10], frequencies: [10] },
        },
        { id: 'osc', executable: 'osc', config: { port: 9000, ...(host === undefined ? {} : { host }) } },
      ],
      pipes: [{ id: 'p', source: 'gen', destination: 'osc' }],
    },
  });
}

test('an osc node sending beyond loopback is refused when the stream is made, pointing at its host', async () => {
  const answer = await createOscStream([], '192.0.2.7');
  expect(answer.statusCode).toBe(403);
  const body = answer.json();
  expect(body).toMatchObject({
    success: false,
    error: { code: 'forbidden_origin', details: { path: '/nodes/1/config/host' } },
  });
  expect(body.error.message).toMatch(/192\.0\.2\.7.*--pipe-allow-host/);
});

test('an osc node may send to loopback by default, and to a host of --pipe-allow-host', async () => {
  expect((await createOscStream([], undefined)).statusCode).toBe(200);
  await server?.close();
  rmSync(dataDir!, { recursive: true, force: true });
  server = undefined;
  expect((await createOscStream(['osc-receiver.lan'], 'OSC-Receiver.lan')).statusCode).toBe(200);
});

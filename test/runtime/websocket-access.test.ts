/**
 * The service's socket rules reach a websocket node inside its worker thread: a required token
 * (the service listens beyond loopback) is demanded on the node's port too, as a bearer header or
 * `?token=`; a node listening beyond loopback demands the data directory's token even when the
 * service does not; the machine's host name, the address the node listens on and the allowed
 * origins are honoured.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { WorkerRuntime } from '../../src/streams/runtime/worker-runtime.js';
import { STREAM_HOST } from '../support/stream-host.js';
import type { AccessPolicy } from '../../src/core/access-policy.js';
import { nextMessage, tryUpgrade } from '../support/upgrade.js';
import { definition, pipe } from './helpers.js';
import { scratchDir } from '../support/scratch.js';

const TOKEN = 'a-token-of-at-least-32-characters-xx';
let runtime: WorkerRuntime | undefined;

afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

/** Starts generator → websocket under `access`; answers the node's port. */
async function serve(dataDir: string, access: AccessPolicy | undefined, host?: string): Promise<number> {
  runtime = new WorkerRuntime({
    workerEntry: STREAM_HOST,
    dataDir,
    executablesDirs: [],
    workers: 1,
    ...(access === undefined ? {} : { access: () => access }),
  });
  const stream = definition(
    [
      {
        id: 'gen',
        executable: 'signal-generator',
        config: { sampleRate: 250, amplitudes: [1], frequencies: [10] },
      },
      { id: 'ws', executable: 'websocket', config: { port: 0, ...(host === undefined ? {} : { host }) } },
    ],
    [pipe('p', 'gen', 'ws')],
  );
  await runtime.start(stream);
  const port = runtime.status(stream.id)?.nodes.ws?.info?.port;
  if (typeof port !== 'number') throw new Error('no port');
  return port;
}

async function expectOpen(url: string, headers: Record<string, string> = {}): Promise<void> {
  const outcome = await tryUpgrade(url, headers);
  if (outcome.kind !== 'open') throw new Error(`refused: ${JSON.stringify(outcome)}`);
  expect(await nextMessage(outcome.socket)).toContain('"data"');
  outcome.socket.terminate();
}

async function expectRefused(url: string, headers: Record<string, string>, status: number, code: string) {
  const outcome = await tryUpgrade(url, headers);
  if (outcome.kind === 'open') {
    outcome.socket.terminate();
    throw new Error('accepted');
  }
  expect(outcome.status).toBe(status);
  expect(outcome.body).toMatchObject({ success: false, error: { code } });
}

describe("a websocket node applies the service's rules", () => {
  test('the token the service requires: refused without it (401), accepted with it', async () => {
    const dataDir = scratchDir('headsetd-ws-access');
    const port = await serve(dataDir, {
      token: TOKEN,
      allowedOrigins: [],
      allowedHosts: [],
      hostname: 'headset',
    });
    const url = `ws://127.0.0.1:${port}/`;
    await expectRefused(url, {}, 401, 'authentication_required');
    await expectRefused(`${url}?token=wrong`, {}, 401, 'authentication_required');
    await expectOpen(`${url}?token=${TOKEN}`);
    await expectOpen(url, { authorization: `Bearer ${TOKEN}` });
    // The device's host name and its .local name are this device.
    await expectOpen(`${url}?token=${TOKEN}`, { host: `headset.local:${port}` });
    await expectRefused(`${url}?token=${TOKEN}`, { origin: 'http://evil.example' }, 403, 'forbidden_origin');
  }, 30_000);

  test('a node listening beyond loopback requires the data directory token, even when the service does not', async () => {
    const dataDir = scratchDir('headsetd-ws-access');
    const port = await serve(
      dataDir,
      { token: undefined, allowedOrigins: ['http://app.example'], allowedHosts: [], hostname: 'headset' },
      '0.0.0.0',
    );
    const token = readFileSync(path.join(dataDir, 'token'), 'utf8').trim();
    const url = `ws://127.0.0.1:${port}/`;
    await expectRefused(url, {}, 401, 'authentication_required');
    await expectOpen(`${url}?token=${token}`, { origin: 'http://app.example' });
  }, 30_000);

  test('the address the node listens on passes as Host (it was refused unless --allow-host repeated it)', async () => {
    const dataDir = scratchDir('headsetd-ws-access');
    // The IPv4 loopback address in IPv6 form: beyond loopback for headsetd, on this machine still.
    const port = await serve(dataDir, undefined, '::ffff:127.0.0.1');
    const token = readFileSync(path.join(dataDir, 'token'), 'utf8').trim();
    const url = `ws://127.0.0.1:${port}/?token=${token}`;
    await expectOpen(url, { host: `[::ffff:7f00:1]:${port}` });
    await expectOpen(url, {
      host: `[::ffff:127.0.0.1]:${port}`,
      origin: `http://[::ffff:127.0.0.1]:${port}`,
    });
    await expectRefused(url, { host: `[::ffff:127.0.0.2]:${port}` }, 403, 'forbidden_origin');
  }, 30_000);

  test('without a policy from its service, loopback names only', async () => {
    const dataDir = scratchDir('headsetd-ws-access');
    const port = await serve(dataDir, undefined);
    await expectOpen(`ws://127.0.0.1:${port}/`, { host: `localhost:${port}` });
    await expectRefused(
      `ws://127.0.0.1:${port}/`,
      { host: `headset.local:${port}` },
      403,
      'forbidden_origin',
    );
  }, 30_000);
});

/**
 * Regression: a WebSocket upgrade refused by the security hook (foreign Origin, missing token)
 * left its socket open, because the hook ran before @fastify/websocket's own; the client never got
 * its answer and app.close() hung on the open socket.
 */
import { rmSync } from 'node:fs';
import { pluginOptions, wiredPlugins } from './system/support.js';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { expect, test } from 'vitest';
import WebSocket from 'ws';
import { createApp } from '../../src/api/app.js';
import { createSimulatedHeadset } from '../../src/device/simulated/index.js';
import { openDatabase } from '../../src/platform/store/database.js';
import { StreamManager } from '../../src/streams/manager.js';
import { StreamStore } from '../../src/streams/store.js';
import { FakeRuntime } from '../support/fake-runtime.js';
import { scratchDir } from '../support/scratch.js';

function refusal(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      socket.terminate();
    });
    socket.once('open', () => {
      socket.close();
      reject(new Error('the upgrade was accepted'));
    });
    socket.once('error', () => undefined);
  });
}

test('refused WebSocket upgrades are answered, and the app still closes', async () => {
  const dataDir = scratchDir('headsetd-ws-security');
  const db = openDatabase(dataDir);
  const device = createSimulatedHeadset({ seed: 1 });
  const manager = new StreamManager(new StreamStore(db), new FakeRuntime(), {
    context: { executablesDirs: [] },
  });
  const app = await createApp({
    manager,
    logger: pino({ level: 'silent' }),
    version: 't',
    security: {
      token: 'a-token-of-at-least-32-characters-xx',
      allowedOrigins: [],
      allowedHosts: [],
      hostname: () => 'headset',
      port: () => 0,
    },
    extraPlugins: [wiredPlugins(pluginOptions(device, db, dataDir), { guides: false })],
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/system/events`;

  expect(await refusal(url, {})).toBe(401);
  expect(
    await refusal(url, {
      origin: 'http://evil.example',
      authorization: 'Bearer a-token-of-at-least-32-characters-xx',
    }),
  ).toBe(403);
  // With the token and no foreign origin, the same upgrade is accepted.
  const accepted = new WebSocket(`${url}?token=a-token-of-at-least-32-characters-xx`);
  await new Promise((resolve, reject) => {
    accepted.once('open', resolve);
    accepted.once('error', reject);
  });
  accepted.close();

  await app.close();
  await manager.close();
  await device.close();
  db.close();
  rmSync(dataDir, { recursive: true, force: true });
}, 20_000);

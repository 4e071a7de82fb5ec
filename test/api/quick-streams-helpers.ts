/**
 * Helpers of the quick-streams API tests: the real app (createApp) with the quick-streams plugin
 * over a FakeRuntime, whose tap listeners the tests drive with frames of their own.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import WebSocket from 'ws';
import { createApp } from '../../src/api/app.js';
import { quickStreamsPlugin } from '../../src/api/quick-streams.js';
import { type QuickStreamServicesOptions, quickStreamServices } from '../../src/service/services.js';
import type { Frame } from '../../src/core/frame.js';
import { openDatabase } from '../../src/platform/store/database.js';
import { StreamManager } from '../../src/streams/manager.js';
import { StreamStore } from '../../src/streams/store.js';
import { FakeRuntime } from '../support/fake-runtime.js';
import type { ControlPlane } from '../support/control-plane.js';
import { scratchDir } from '../support/scratch.js';

export type QuickPlane = ControlPlane & { listen(): Promise<number> };

export async function quickPlane(
  options: Partial<Omit<QuickStreamServicesOptions, 'manager' | 'runtime'>> & {
    runtime?: FakeRuntime;
    /** The service's own token (as when it listens beyond loopback). */
    token?: string;
  } = {},
): Promise<QuickPlane> {
  const dataDir = scratchDir('headsetd-quick');
  const executablesDir = path.join(dataDir, 'executables');
  const db = openDatabase(dataDir);
  const runtime = options.runtime ?? new FakeRuntime();
  const manager = new StreamManager(new StreamStore(db), runtime, {
    context: { executablesDirs: [executablesDir] },
  });
  const { runtime: _omit, token, ...serviceOptions } = options;
  // As the service wires them (src/service/services.ts), closed with the app.
  const quick = quickStreamServices({ manager, runtime, transitionTimeoutMs: 2000, ...serviceOptions });
  const app: FastifyInstance = await createApp({
    manager,
    logger: pino({ level: 'silent' }),
    version: '0.0.0-test',
    security: {
      token,
      allowedOrigins: [],
      allowedHosts: [],
      hostname: () => 'headset',
      port: () => 42069,
    },
    extraPlugins: [
      (scope) => {
        scope.addHook('onClose', async () => {
          quick.close();
        });
        quickStreamsPlugin(scope, quick);
      },
    ],
  });
  await app.ready();
  return {
    app,
    manager,
    runtime,
    dataDir,
    executablesDir,
    db,
    async listen() {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address();
      if (address === null || typeof address === 'string') throw new Error('not listening');
      return address.port;
    },
    async close() {
      await app.close();
      await manager.close();
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A frame of `rows` samples on `channels`, values `base + row * 10 + channel`. */
export function testFrame(seq: number, rows: number, channels: string[], base = 0, sampleRate = 250): Frame {
  const data = new Float32Array(rows * channels.length);
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < channels.length; c++) data[r * channels.length + c] = base + r * 10 + c;
  return { seq, timestamp: 1_700_000_000_000 + seq * 1000, sampleRate, channels, data };
}

/** A connected ws client that keeps every message and its close code and reason. */
export interface Client {
  socket: WebSocket;
  messages: unknown[];
  closed: Promise<{ code: number; reason: string }>;
}

export async function connect(url: string): Promise<Client> {
  const socket = new WebSocket(url);
  const messages: unknown[] = [];
  socket.on('message', (data) => {
    messages.push(JSON.parse((data as Buffer).toString('utf8')));
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.on('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
    });
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => {
      resolve();
    });
    socket.once('error', reject);
  });
  return { socket, messages, closed };
}

/** The HTTP status a refused upgrade answered with. */
export function refusedUpgrade(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.on('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.on('open', () => {
      reject(new Error('the upgrade was accepted'));
      socket.close();
    });
    socket.on('error', () => undefined);
  });
}

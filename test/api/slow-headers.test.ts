/**
 * Regression: a connection whose headers never finished arriving was closed 84 to 94 s after it
 * opened, where docs/api.md says 60 s. Node checked the headers timeout only every 30 s (its
 * `connectionsCheckingInterval` default); the API's server now checks every second, so the 408
 * comes between 60 and 61 s. Nothing here waits 60 s, nor reads a clock: the server's settings are
 * read, and a server with a short timeout shows the close and its answer while one with the
 * default timeout still holds the same half request open.
 */
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import pino from 'pino';
import { afterEach, expect, test } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { HEADERS_CHECK_INTERVAL_MS, HEADERS_TIMEOUT_MS } from '../../src/platform/security/http-timeouts.js';
import { openDatabase } from '../../src/platform/store/database.js';
import { StreamManager } from '../../src/streams/manager.js';
import { StreamStore } from '../../src/streams/store.js';
import { FakeRuntime } from '../support/fake-runtime.js';
import { tempDataDir } from '../support/service.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function app(headersTimeoutMs?: number) {
  const db = openDatabase(tempDataDir());
  const manager = new StreamManager(new StreamStore(db), new FakeRuntime(), {
    context: { executablesDirs: [] },
  });
  const created = await createApp({
    manager,
    logger: pino({ level: 'silent' }),
    version: 't',
    ...(headersTimeoutMs === undefined ? {} : { headersTimeoutMs }),
    security: { token: undefined, allowedOrigins: [], allowedHosts: [], hostname: () => '', port: () => 0 },
  });
  cleanups.push(async () => {
    await created.close();
    db.close();
  });
  return created;
}

test('the API server closes slow headers 60 s after they began, checked every second (it took 84-94 s)', async () => {
  const server = (await app()).server as Server & { connectionsCheckingInterval: number };
  expect(server.headersTimeout).toBe(60_000);
  expect(HEADERS_TIMEOUT_MS).toBe(60_000);
  expect(server.connectionsCheckingInterval).toBe(HEADERS_CHECK_INTERVAL_MS);
  expect(HEADERS_CHECK_INTERVAL_MS).toBeLessThanOrEqual(1000);
});

/** A connection that sends half a request: the blank line that ends the headers never comes. */
function halfRequest(port: number) {
  const socket = connect({ host: '127.0.0.1', port });
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      resolve();
    }),
  );
  let isClosed = false;
  void closed.then(() => {
    isClosed = true;
  });
  socket.write('GET /stream/streams HTTP/1.1\r\nHost: 127.0.0.1\r\n');
  return { socket, chunks, closed, isClosed: () => isClosed };
}

async function listening(headersTimeoutMs?: number): Promise<number> {
  const fastify = await app(headersTimeoutMs);
  await fastify.listen({ host: '127.0.0.1', port: 0 });
  return (fastify.server.address() as AddressInfo).port;
}

test('headers that stop arriving get 408 request_timeout in the envelope once the timeout is over, and the connection is closed', async () => {
  // The same half request to a server whose timeout is short and to one whose timeout is the
  // default 60 s: the first closes it, while the second still holds it open. So it is the timeout
  // that closes the connection, not the half request itself (an ordering, not a reading of the clock).
  const short = halfRequest(await listening(400));
  const long = halfRequest(await listening());
  await short.closed;
  expect(long.isClosed()).toBe(false);
  expect(long.chunks).toEqual([]);
  long.socket.destroy();
  const text = Buffer.concat(short.chunks).toString('utf8');
  expect(text).toMatch(/^HTTP\/1\.1 408 /);
  const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as {
    success: boolean;
    error: { code: string };
  };
  expect(body).toMatchObject({ success: false, error: { code: 'request_timeout' } });
}, 10_000);

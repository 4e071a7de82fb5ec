/**
 * The log tells a client's error from a fault of the service (docs/api.md §Errors, "In the log"):
 * a 4xx is logged once, at info, with its code and no stack (the answer told the client); a 5xx
 * once, at error, with the stack of what was thrown. The node signal path is the case in point:
 * a node refusing a signal (a 422 its answer carries) was also logged at error with its stack by
 * the stream's queue of runtime work. The service is assembled by startServer over a FakeRuntime.
 */
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/service/config.js';
import { HeadsetdError } from '../../src/core/errors.js';
import { type RunningServer, startServer } from '../../src/service/server.js';
import { FakeRuntime } from '../support/fake-runtime.js';
import { capturingLogger } from '../support/log-capture.js';
import { chainStream, OTHER_ID } from './helpers.js';
import { STREAM_HOST } from '../support/stream-host.js';
import { scratchDir } from '../support/scratch.js';

const ID = OTHER_ID;
const SIGNAL_PATH = `/stream/streams/${ID}/nodes/filt/signal`;
/** pino's levels. */
const INFO = 30;
const ERROR = 50;

let server: RunningServer;
let runtime: FakeRuntime;
let dataDir: string;
const records: Record<string, unknown>[] = [];

beforeEach(async () => {
  dataDir = scratchDir('headsetd-error-log');
  runtime = new FakeRuntime();
  records.length = 0;
  server = await startServer({
    workerEntry: STREAM_HOST,
    settings: { ...DEFAULTS, port: 0, dataDir },
    logger: capturingLogger(records, 'info'),
    runtime,
  });
  const created = await server.app.inject({
    method: 'POST',
    url: '/stream/streams',
    payload: chainStream(ID),
  });
  expect(created.statusCode, created.body).toBe(200);
  const started = await server.app.inject({
    method: 'POST',
    url: `/stream/streams/${ID}/signal`,
    payload: { signal: 'start' },
  });
  expect(started.statusCode, started.body).toBe(200);
});

afterEach(async () => {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Sends a request and returns its answer with the records logged while it was served. */
async function logged(url: string, payload: unknown) {
  const from = records.length;
  const answer = await server.app.inject({ method: 'POST', url, payload: payload as object });
  return {
    status: answer.statusCode,
    body: answer.json<Record<string, any>>(),
    records: records.slice(from),
  };
}

/** Whether a record carries a stack trace anywhere (pino's `err.stack`, or a stack in any text). */
function hasStack(record: Record<string, unknown>): boolean {
  return /\n\s+at .+:\d+:\d+/.test(JSON.stringify(record).replace(/\\n/g, '\n'));
}

/** The one record a client's error leaves: info, its code and status, no stack. */
function expectClientError(seen: Record<string, unknown>[], status: number, code: string) {
  expect(
    seen.filter((r) => (r.level as number) > INFO),
    JSON.stringify(seen),
  ).toEqual([]);
  expect(seen.filter(hasStack)).toEqual([]);
  const told = seen.filter((r) => r.code === code);
  expect(told, JSON.stringify(seen)).toHaveLength(1);
  expect(told[0]).toMatchObject({ level: INFO, statusCode: status });
  expect(told[0]).not.toHaveProperty('err');
}

describe('a client error on the node signal path', () => {
  it('a body without a signal: 400, logged once at info without a stack', async () => {
    const answer = await logged(SIGNAL_PATH, { marker: 'x' });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('invalid_request');
    expectClientError(answer.records, 400, 'invalid_request');
  });

  it('a signal the node refuses: 422, logged once at info without a stack (it was also logged at error, with the stack)', async () => {
    runtime.refuseSignal = new HeadsetdError('validation_failed', "signal marker needs a non-empty 'text'.");
    const answer = await logged(SIGNAL_PATH, { signal: 'marker' });
    expect(answer.status).toBe(422);
    expect(answer.body.error).toMatchObject({
      code: 'validation_failed',
      message: "signal marker needs a non-empty 'text'.",
    });
    expectClientError(answer.records, 422, 'validation_failed');
  });

  it('a node the stream does not have: 404, logged at info without a stack', async () => {
    const answer = await logged(`/stream/streams/${ID}/nodes/nosuch/signal`, { signal: 'marker' });
    expect(answer.status).toBe(404);
    expectClientError(answer.records, 404, 'node_not_found');
  });
});

describe('a fault of the service', () => {
  it('is answered 500 without a stack, and logged once at error with the stack of what was thrown', async () => {
    runtime.refuseSignal = new Error('the worker lost its map of nodes');
    const answer = await logged(SIGNAL_PATH, { signal: 'marker' });
    expect(answer.status).toBe(500);
    expect(answer.body.error.code).toBe('internal_error');
    expect(JSON.stringify(answer.body)).not.toContain('lost its map');
    const errors = answer.records.filter((r) => (r.level as number) >= ERROR);
    expect(errors, JSON.stringify(answer.records)).toHaveLength(1);
    const err = errors[0]?.err as { message: string; stack: string };
    expect(err.message).toBe('the worker lost its map of nodes');
    expect(err.stack).toMatch(/\n\s+at /);
  });

  it('a catalogue error of a 5xx status is logged at error with its stack', async () => {
    runtime.refuseSignal = new HeadsetdError('device_unavailable', 'The device stopped answering.');
    const answer = await logged(SIGNAL_PATH, { signal: 'marker' });
    expect(answer.status).toBe(503);
    const errors = answer.records.filter((r) => (r.level as number) >= ERROR);
    expect(errors, JSON.stringify(answer.records)).toHaveLength(1);
    expect(errors[0]).toMatchObject({ err: { message: 'The device stopped answering.' } });
    expect((errors[0]?.err as { stack: string }).stack).toMatch(/\n\s+at /);
  });
});

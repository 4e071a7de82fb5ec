/**
 * Helpers of the Streams API tests: every request goes through `call`, which checks the two rules
 * that hold for every answer (docs/api.md §Errors): nothing answers 500, and
 * every non-2xx body is the envelope `{success:false, error:{code, message, details?}}`.
 */
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { ErrorCode } from '../../src/core/errors.js';
import { HTTP_STATUS } from '../../src/platform/http/statuses.js';
import type { ControlPlane } from '../support/control-plane.js';

export interface Envelope {
  success: false;
  error: { code: string; message: string; details?: Record<string, unknown> };
}

/** Asserts the error envelope exactly: no other keys, a non-empty message, an object `details` if present. */
export function assertEnvelope(response: LightMyRequestResponse): Envelope {
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(response.body) as Envelope;
  expect(Object.keys(body).sort()).toEqual(['error', 'success']);
  expect(body.success).toBe(false);
  const keys = Object.keys(body.error).sort();
  expect(keys.filter((k) => k !== 'details')).toEqual(['code', 'message']);
  expect(typeof body.error.code).toBe('string');
  expect(body.error.code in HTTP_STATUS).toBe(true);
  expect(HTTP_STATUS[body.error.code as ErrorCode]).toBe(response.statusCode);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  // No stack traces in bodies.
  expect(response.body).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
  if ('details' in body.error) {
    expect(typeof body.error.details).toBe('object');
    expect(body.error.details).not.toBeNull();
    expect(Array.isArray(body.error.details)).toBe(false);
  }
  return body;
}

/** Any request; fails the test on a 500 or on a non-2xx body that is not the envelope. */
export async function call(cp: ControlPlane, options: InjectOptions): Promise<LightMyRequestResponse> {
  const response = await cp.app.inject(options);
  const where = typeof options.url === 'string' ? options.url : JSON.stringify(options.url);
  expect(response.statusCode, `${String(options.method)} ${where}: ${response.body}`).not.toBe(500);
  // HEAD answers carry no body.
  if (response.statusCode >= 300 && options.method !== 'HEAD') assertEnvelope(response);
  return response;
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/** A request with a JSON body (or none). */
export function json(cp: ControlPlane, method: Method, url: string, body?: unknown) {
  return call(cp, {
    method,
    url,
    ...(body === undefined
      ? {}
      : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
}

/** A request with a text body under the given content type (YAML by default). */
export function text(cp: ControlPlane, method: Method, url: string, body: string, type = 'text/yaml') {
  return call(cp, { method, url, payload: body, headers: { 'content-type': type } });
}

/** A form-urlencoded request. */
export function form(cp: ControlPlane, method: Method, url: string, fields: Record<string, string>) {
  return call(cp, {
    method,
    url,
    payload: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

/** Asserts status and code of an error answer and returns its envelope. */
export function expectError(response: LightMyRequestResponse, status: number, code: ErrorCode): Envelope {
  expect(response.statusCode, response.body).toBe(status);
  const body = assertEnvelope(response);
  expect(body.error.code).toBe(code);
  return body;
}

/** The parsed body of a 200 answer. */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller states the shape it expects
export function ok<T = Record<string, unknown>>(response: LightMyRequestResponse): T {
  expect(response.statusCode, response.body).toBe(200);
  return JSON.parse(response.body) as T;
}

/** Both mounts of the Streams API: the reference paths and the guide aliases. */
export const PREFIXES = ['/stream', ''] as const;

export const OTHER_ID = '0d9a7c1e-2b3f-4a5b-8c6d-7e8f9a0b1c2d';

export interface StreamDoc {
  id: string;
  meta: Record<string, unknown>;
  nodes: { id: string; type?: string; executable: string; config?: Record<string, unknown> }[];
  pipes: { id: string; source: string; destination: string }[];
}

/** A small valid graph of built-ins with short ids: gen → filt → log. */
export function chainStream(id: string): StreamDoc {
  return {
    id,
    meta: { name: 'chain' },
    nodes: [
      {
        id: 'gen',
        type: 'EXECUTABLE_PRODUCER',
        executable: 'signal-generator',
        config: { sampleRate: 250, amplitudes: [1], frequencies: [10] },
      },
      { id: 'filt', type: 'EXECUTABLE', executable: 'filter', config: { lowpass: 40 } },
      { id: 'log', type: 'EXECUTABLE_CONSUMER', executable: 'logger', config: {} },
    ],
    pipes: [
      { id: 'p1', source: 'gen', destination: 'filt' },
      { id: 'p2', source: 'filt', destination: 'log' },
    ],
  };
}

/** Reads a stream back through the API. */
export async function readStream(cp: ControlPlane, id: string) {
  return ok<{ success: true; stream: ReadStream }>(await json(cp, 'GET', `/stream/streams/${id}`)).stream;
}

export interface ReadStream {
  id: string;
  meta: Record<string, unknown>;
  nodes: { id: string; status: string; [k: string]: unknown }[];
  pipes: { id: string; source: string; destination: string; [k: string]: unknown }[];
  status: string;
}

/** Sends a stream signal as a form field, the reference's way. */
export function signal(cp: ControlPlane, id: string, name: string, prefix = '/stream') {
  return form(cp, 'POST', `${prefix}/streams/${id}/signal`, { signal: name });
}

/** The lower-case state from GET status. */
export async function stateOf(cp: ControlPlane, id: string): Promise<string> {
  const body = ok<{ status: { state: string } }>(await json(cp, 'GET', `/stream/streams/${id}/status`));
  return body.status.state;
}

/**
 * Regression: requests that Node's HTTP parser refuses before any route runs (headers or URL over
 * the size limit, malformed HTTP) were answered with Fastify's own body
 * (`{"error":"Request Header Fields Too Large",...}`), not the error envelope. Real sockets: these
 * requests cannot be injected.
 */
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP_STATUS } from '../../src/platform/http/statuses.js';
import { type ControlPlane, controlPlane } from '../support/control-plane.js';

let cp: ControlPlane;
let port: number;
beforeAll(async () => {
  cp = await controlPlane();
  await cp.app.listen({ host: '127.0.0.1', port: 0 });
  port = (cp.app.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await cp.close();
});

/** Sends raw bytes and reads until the server closes the connection. */
function raw(request: string): Promise<{ status: number; headers: string; body: any }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
      try {
        resolve({ status, headers: head, body: JSON.parse(body) });
      } catch {
        reject(new Error(`not a JSON answer: ${text}`));
      }
    });
    socket.write(request);
  });
}

function expectEnvelope(answer: { status: number; headers: string; body: any }, code: string): void {
  expect(answer.headers).toMatch(/content-type: application\/json/i);
  expect(answer.body.success).toBe(false);
  expect(answer.body.error.code).toBe(code);
  expect(HTTP_STATUS[code as keyof typeof HTTP_STATUS]).toBe(answer.status);
  expect(answer.body.error.message.length).toBeGreaterThan(0);
}

describe('requests the HTTP parser refuses', () => {
  it("headers over the size limit answer 431 headers_too_large in the envelope, not Fastify's body", async () => {
    const answer = await raw(
      `GET /stream/streams HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(answer.status).toBe(431);
    expectEnvelope(answer, 'headers_too_large');
    expect(answer.body.error.message).toContain('bytes');
    expect(answer.body.error.details.limitBytes).toBeGreaterThan(0);
  });

  it('a URL over the size limit answers 431 in the envelope', async () => {
    const answer = await raw(
      `GET /stream/streams?x=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
    );
    expect(answer.status).toBe(431);
    expectEnvelope(answer, 'headers_too_large');
  });

  it('malformed HTTP answers 400 invalid_request in the envelope', async () => {
    const answer = await raw('GARBAGE\r\n\r\n');
    expect(answer.status).toBe(400);
    expectEnvelope(answer, 'invalid_request');
  });

  it('a header line without a colon answers 400 in the envelope', async () => {
    const answer = await raw('GET /stream/streams HTTP/1.1\r\nHost: 127.0.0.1\r\nno colon here\r\n\r\n');
    expect(answer.status).toBe(400);
    expectEnvelope(answer, 'invalid_request');
  });

  it('the server still answers ordinary requests afterwards', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/stream/streams`);
    expect(response.status).toBe(200);
  });
});

/**
 * The client's HTTP requests against a plain local server: what it sends (bodies, token, query,
 * Accept), how it follows redirects (as the Fetch standard does: the method and body kept by 307 and
 * 308, a POST made a GET by 301, 302 and 303, the token never sent to another origin), and how
 * each failure reads (the envelope, a refused or dropped connection, an unknown host, an answer
 * that is not JSON, Ctrl-C, a service that stops answering).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ApiError, ConnectionError } from './failures.js';
import { ApiClient } from './http.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void;

/** A server on a free loopback port that records each request and answers with `handle`. */
async function serve(handle: Handler): Promise<{ server: Server; url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      handle(request, response, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`, seen };
}

function json(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(value));
}

describe('ApiClient', () => {
  let main: Awaited<ReturnType<typeof serve>>;
  let other: Awaited<ReturnType<typeof serve>>;

  beforeAll(async () => {
    other = await serve((request, response) => {
      json(response, 200, { at: 'other', method: request.method });
    });
    main = await serve((request, response, body) => {
      const url = new URL(request.url ?? '/', 'http://x');
      const redirect = /^\/redirect\/(\d{3})(\/other)?$/.exec(url.pathname);
      if (redirect !== null) {
        response.writeHead(Number(redirect[1]), {
          location: redirect[2] === undefined ? '/echo' : `${other.url}/echo`,
        });
        response.end();
      } else if (url.pathname === '/refuse') {
        json(response, 422, {
          success: false,
          error: { code: 'validation_failed', message: 'Bad rate.', details: { path: '/rate' } },
        });
      } else if (url.pathname === '/proxy-page') {
        response.writeHead(502, { 'content-type': 'text/html' });
        response.end('<html>bad gateway</html>');
      } else if (url.pathname === '/not-json') {
        response.end('hello');
      } else if (url.pathname === '/empty') {
        response.writeHead(204);
        response.end();
      } else if (url.pathname === '/drop') {
        request.socket.destroy();
      } else if (url.pathname === '/silent') {
        // Never answers.
      } else {
        json(response, 200, { method: request.method, url: request.url, body });
      }
    });
  });

  afterAll(async () => {
    main.server.closeAllConnections();
    other.server.closeAllConnections();
    await Promise.all([main, other].map(({ server }) => new Promise((resolve) => server.close(resolve))));
  });

  const client = (token?: string): ApiClient => new ApiClient({ url: main.url, token });

  test('sends JSON, text and form bodies with their types, the token, Accept: application/json and the query', async () => {
    main.seen.length = 0;
    const c = client('secret');
    expect(
      await c.post('/echo', { json: { a: 1 }, query: { ids: ['x', 'y'], n: 2, skip: undefined } }),
    ).toEqual({
      method: 'POST',
      url: '/echo?ids=x%2Cy&n=2',
      body: '{"a":1}',
    });
    await c.request('PUT', '/echo', { text: 'id: 1\n', contentType: 'application/yaml' });
    await c.post('/echo', { form: { name: 'a b', rate: '250' } });
    await c.get('/echo', { accept: 'text/plain' });
    expect(
      main.seen.map(({ method, headers, body }) => [
        method,
        headers['content-type'],
        headers.authorization,
        headers.accept,
        body,
      ]),
    ).toEqual([
      ['POST', 'application/json', 'Bearer secret', 'application/json', '{"a":1}'],
      ['PUT', 'application/yaml', 'Bearer secret', 'application/json', 'id: 1\n'],
      ['POST', 'application/x-www-form-urlencoded', 'Bearer secret', 'application/json', 'name=a+b&rate=250'],
      ['GET', undefined, 'Bearer secret', 'text/plain', ''],
    ]);
    await client().get('/echo');
    expect(main.seen.at(-1)?.headers.authorization).toBeUndefined();
  });

  test('an empty answer is an empty object; an answer that is not JSON is a ConnectionError', async () => {
    expect(await client().post('/empty')).toEqual({});
    const error = await client()
      .get('/not-json')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toBe('GET /not-json: the service answered something that is not JSON');
  });

  test("a refusal is an ApiError with the service's envelope; an answer with none is described", async () => {
    const refused = await client()
      .get('/refuse')
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(422);
    expect((refused as ApiError).envelope.error).toEqual({
      code: 'validation_failed',
      message: 'Bad rate.',
      details: { path: '/rate' },
    });
    const proxy = await client()
      .get('/proxy-page')
      .catch((e: unknown) => e);
    expect((proxy as ApiError).envelope.error).toEqual({
      code: 'unexpected_answer',
      message: 'The service answered HTTP 502 without an error envelope: <html>bad gateway</html>',
    });
  });

  test.each([
    [307, 'POST', '{"keep":true}'],
    [308, 'POST', '{"keep":true}'],
    [301, 'GET', ''],
    [302, 'GET', ''],
    [303, 'GET', ''],
  ])('follows a %i: the request goes on as %s', async (status, method, body) => {
    main.seen.length = 0;
    const answer = await client('secret').post(`/redirect/${String(status)}`, { json: { keep: true } });
    expect(answer).toEqual({ method, url: '/echo', body });
    const followed = main.seen.at(-1);
    expect(followed?.headers.authorization).toBe('Bearer secret');
    expect(followed?.headers['content-type']).toBe(body === '' ? undefined : 'application/json');
  });

  test('a redirect to another origin is followed without the token', async () => {
    other.seen.length = 0;
    expect(await client('secret').get('/redirect/302/other')).toEqual({ at: 'other', method: 'GET' });
    expect(other.seen[0]?.headers.authorization).toBeUndefined();
  });

  test('nothing listening, a dropped connection and an unknown host are ConnectionErrors that say so', async () => {
    const closed = await serve(() => undefined);
    const url = closed.url;
    await new Promise((resolve) => closed.server.close(resolve));
    const failures = await Promise.all(
      [
        new ApiClient({ url, token: undefined }).get('/'),
        client().get('/drop'),
        new ApiClient({ url: 'http://headsetd.invalid:42069', token: undefined }).get('/'),
      ].map((request) => request.catch((e: unknown) => e)),
    );
    for (const failure of failures) expect(failure).toBeInstanceOf(ConnectionError);
    expect(failures.map((failure) => (failure as Error).message)).toEqual([
      `cannot reach ${url}: connection refused; is headsetd running there? (headsetd serve)`,
      `cannot reach ${main.url}: the connection was closed`,
      'cannot reach http://headsetd.invalid:42069: unknown host',
    ]);
  });

  test('a service that stops answering is a ConnectionError once the idle time has passed', async () => {
    const impatient = new ApiClient({ url: main.url, token: undefined }, { connectMs: 10_000, idleMs: 50 });
    await expect(impatient.get('/silent')).rejects.toThrow(
      new ConnectionError(`cannot reach ${main.url}: the connection timed out`),
    );
  });

  test('an aborted request rejects with an AbortError', async () => {
    const controller = new AbortController();
    const request = client().get('/silent', { signal: controller.signal });
    setTimeout(() => {
      controller.abort();
    }, 10);
    await expect(request).rejects.toMatchObject({ name: 'AbortError' });
  });
});

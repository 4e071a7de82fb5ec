/**
 * Optimistic concurrency of stream edits (docs/api.md §Concurrent edits): every stream read
 * answers an ETag, the stream's revision; an edit with If-Match applies only to that revision,
 * else 412 precondition_failed naming the current one, with nothing changed; without If-Match
 * edits work as before. Of two clients editing the revision they both read, exactly one wins.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ControlPlane, controlPlane } from '../support/control-plane.js';
import { call, chainStream, expectError, json, ok, OTHER_ID, PREFIXES, signal } from './helpers.js';

const ID = OTHER_ID;
let cp: ControlPlane;
beforeEach(async () => {
  cp = await controlPlane();
  ok(await json(cp, 'POST', '/stream/streams', chainStream(ID)));
});
afterEach(async () => {
  await cp.close();
});

/** A request with a JSON body and an If-Match header. */
function edit(method: 'PUT' | 'POST' | 'DELETE', url: string, body: unknown, ifMatch?: string) {
  return call(cp, {
    method,
    url,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

async function etag(url = `/stream/streams/${ID}`): Promise<string> {
  const response = await json(cp, 'GET', url);
  expect(response.statusCode, response.body).toBe(200);
  return String(response.headers.etag);
}

const renamed = (name: string) => ({ ...chainStream(ID), meta: { name } });

describe('ETag', () => {
  it('every stream read answers the revision: "1" when created, one more per edit, kept over a restart', async () => {
    for (const url of [`/stream/streams/${ID}`, `/streams/${ID}/yaml`, `/stream/streams/${ID}/status`]) {
      expect(await etag(url), url).toBe('"1"');
    }
    const yaml = await call(cp, {
      method: 'GET',
      url: `/stream/streams/${ID}`,
      headers: { accept: 'text/yaml' },
    });
    expect(yaml.headers.etag).toBe('"1"');
    const put = ok(await edit('PUT', `/stream/streams/${ID}`, renamed('two')));
    expect(put).toEqual({ id: ID, success: true });
    const added = await edit('POST', `/stream/streams/${ID}/nodes`, [{ id: 'log2', executable: 'logger' }]);
    expect(added.headers.etag).toBe('"3"');
    expect(await etag()).toBe('"3"');
    // A refused edit changes nothing, the revision included.
    expectError(
      await edit('POST', `/stream/streams/${ID}/nodes`, [{ id: 'log2', executable: 'logger' }]),
      409,
      'node_exists',
    );
    expect(await etag()).toBe('"3"');

    await cp.close({ keepData: true });
    cp = await controlPlane({ dataDir: cp.dataDir });
    expect(await etag()).toBe('"3"');
    expect(ok(await edit('PUT', `/stream/streams/${ID}`, renamed('four'), '"3"')).success).toBe(true);
    expect(await etag()).toBe('"4"');
  });
});

describe.each(PREFIXES)('If-Match under "%s/streams"', (prefix) => {
  const url = `${prefix}/streams/${ID}`;
  const routes: [string, 'PUT' | 'POST' | 'DELETE', string, unknown][] = [
    ['PUT', 'PUT', url, renamed('changed')],
    ['add nodes', 'POST', `${url}/nodes`, [{ id: 'log2', executable: 'logger' }]],
    ['remove nodes', 'DELETE', `${url}/nodes`, ['log']],
    ['add pipes', 'POST', `${url}/pipes`, [{ id: 'p3', source: 'gen', destination: 'log' }]],
    ['remove pipes', 'DELETE', `${url}/pipes`, ['p2']],
    ['delete', 'DELETE', url, undefined],
  ];

  it.each(routes)(
    '%s: a stale ETag is 412 precondition_failed naming the current revision; nothing changes',
    async (_what, method, path, body) => {
      ok(await edit('PUT', url, renamed('second')));
      const before = ok(await json(cp, 'GET', url));
      const answer = await edit(method, path, body, '"1"');
      const envelope = expectError(answer, 412, 'precondition_failed');
      // In HTTP terms (the streams layer speaks of revisions only): which header, which value.
      expect(envelope.error.message).toMatch(/revision "2", not "1".*Read it again \(its ETag is "2"\)/);
      expect(envelope.error.message).toMatch(/sending If-Match: "2"\.$/);
      expect(envelope.error.details).toEqual({ revision: 2, ifMatch: ['"1"'] });
      expect(ok(await json(cp, 'GET', url))).toEqual(before);
      expect(await etag()).toBe('"2"');
    },
  );

  it.each(routes)(
    '%s: the current ETag (or *, or a list holding it) applies the edit',
    async (_what, method, path, body) => {
      for (const ifMatch of ['"1"', '*', '"7", "1"']) {
        await cp.close();
        cp = await controlPlane();
        ok(await json(cp, 'POST', '/stream/streams', chainStream(ID)));
        const answer = ok(await edit(method, path, body, ifMatch));
        expect(answer.success).toBe(true);
        if (method === 'DELETE' && body === undefined) {
          expectError(await json(cp, 'GET', url), 404, 'stream_not_found');
        } else {
          expect(await etag()).toBe('"2"');
        }
      }
    },
  );

  it('a weak ETag never matches (If-Match compares strongly); a header that is no ETag is 400', async () => {
    const weak = expectError(await edit('PUT', url, renamed('x'), 'W/"1"'), 412, 'precondition_failed');
    expect(weak.error.message).toMatch(/at revision "1", not one If-Match names/);
    expect(weak.error.details).toEqual({ revision: 1, ifMatch: [] });
    const bad = expectError(await edit('PUT', url, renamed('x'), '1'), 400, 'invalid_request');
    expect(bad.error.message).toMatch(/If-Match must be \* or a list of ETags/);
    expect(bad.error.details).toEqual({ header: 'If-Match' });
    expect(await etag()).toBe('"1"');
  });
});

describe('races', () => {
  it('two clients PUT the revision they read at once: exactly one wins, the other gets 412', async () => {
    const tag = await etag();
    const answers = await Promise.all([
      edit('PUT', `/stream/streams/${ID}`, renamed('alice'), tag),
      edit('PUT', `/stream/streams/${ID}`, renamed('bob'), tag),
    ]);
    const codes = answers.map((a) => a.statusCode).sort();
    expect(codes).toEqual([200, 412]);
    const winner = answers.findIndex((a) => a.statusCode === 200);
    const stream = ok<{ stream: { meta: { name: string } } }>(await json(cp, 'GET', `/stream/streams/${ID}`));
    expect(stream.stream.meta.name).toBe(winner === 0 ? 'alice' : 'bob');
    expect(await etag()).toBe('"2"');
  });

  it('on a running stream, with live updates in flight: of ten edits of one revision exactly one applies', async () => {
    ok(await signal(cp, ID, 'start'));
    await cp.manager.settle();
    const tag = await etag();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        i % 2 === 0
          ? edit('POST', `/stream/streams/${ID}/nodes`, [{ id: `log${i}`, executable: 'logger' }], tag)
          : edit('PUT', `/stream/streams/${ID}`, renamed(`n${i}`), tag),
      ),
    );
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.statusCode === 412)).toHaveLength(9);
    expect(await etag()).toBe('"2"');
    // Without If-Match, edits still apply one after the other.
    const free = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        edit('POST', `/stream/streams/${ID}/nodes`, [{ id: `free${i}`, executable: 'logger' }]),
      ),
    );
    expect(free.map((a) => a.statusCode)).toEqual([200, 200, 200, 200]);
    expect(free.map((a) => a.headers.etag).sort()).toEqual(['"3"', '"4"', '"5"', '"6"']);
  });
});

describe('the OpenAPI document', () => {
  it('documents If-Match on every edit route, the ETag on reads and edits, and the 412', async () => {
    const doc = ok<{ paths: Record<string, Record<string, any>> }>(await json(cp, 'GET', '/openapi.json'));
    const stream = doc.paths['/stream/streams/{id}']!;
    for (const [path, method] of [
      ['/stream/streams/{id}', 'put'],
      ['/stream/streams/{id}', 'delete'],
      ['/stream/streams/{id}/nodes', 'post'],
      ['/stream/streams/{id}/nodes', 'delete'],
      ['/stream/streams/{id}/pipes', 'post'],
      ['/stream/streams/{id}/pipes', 'delete'],
    ] as const) {
      const operation = doc.paths[path]![method];
      const header = operation.parameters.find((p: { in: string; name: string }) => p.in === 'header');
      expect(header, `${method} ${path}`).toMatchObject({ name: 'if-match', required: false });
      expect(Object.keys(operation.responses), `${method} ${path}`).toContain('412');
    }
    for (const [path, method] of [
      ['/stream/streams/{id}', 'get'],
      ['/stream/streams/{id}/yaml', 'get'],
      ['/stream/streams/{id}/status', 'get'],
      ['/stream/streams/{id}', 'put'],
      ['/stream/streams/{id}/nodes', 'post'],
    ] as const) {
      expect(
        Object.keys(doc.paths[path]![method].responses['200'].headers ?? {}),
        `${method} ${path}`,
      ).toEqual(['ETag']);
    }
    expect(stream.put.responses['412'].content['application/json'].schema.$ref).toContain('ErrorEnvelope');
  });
});

/**
 * Errors a stranger can act on (docs/api.md §Errors): a stream id that is not a UUID says so and
 * offers one; JSON sent as form fields or as text says which Content-Type to send; a misspelt
 * field is answered with the closest allowed one ("did you mean"), its pointer kept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ControlPlane, controlPlane, STREAM_ID } from '../support/control-plane.js';
import { call, chainStream, expectError, json, ok, OTHER_ID, text } from './helpers.js';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

let cp: ControlPlane;
beforeAll(async () => {
  cp = await controlPlane();
  ok(await json(cp, 'POST', '/stream/streams', chainStream(OTHER_ID)));
});
afterAll(async () => {
  await cp.close();
});

describe('a stream id that is not a UUID', () => {
  it('in a create body: 422 at /id saying a UUID is required, with a fresh one to copy', async () => {
    const body = expectError(
      await json(cp, 'POST', '/stream/streams', { ...chainStream(STREAM_ID), id: 'my-stream' }),
      422,
      'validation_failed',
    );
    expect(body.error.details?.path).toBe('/id');
    expect(body.error.message).toMatch(/"my-stream" is not a UUID: a stream id must be a UUID/);
    const example = body.error.details?.example as string;
    expect(example).toMatch(UUID);
    expect(body.error.message).toContain(example);
    // The example works as it is.
    ok(await json(cp, 'POST', '/stream/streams', { ...chainStream(STREAM_ID), id: example }));
  });

  it('in a path: 404 saying that no stream can have it and what an id looks like', async () => {
    for (const url of [
      '/stream/streams/my-stream',
      '/streams/my-stream/status',
      '/stream/streams/x/nodes/a/logs',
    ]) {
      const body = expectError(await json(cp, 'GET', url), 404, 'stream_not_found');
      expect(body.error.message).toMatch(/nor can: a stream id must be a UUID/);
      expect(body.error.details?.example).toMatch(UUID);
    }
  });

  it('a UUID that names no stream keeps the plain answer', async () => {
    const body = expectError(
      await json(cp, 'GET', '/stream/streams/00000000-0000-4000-8000-000000000000'),
      404,
      'stream_not_found',
    );
    expect(body.error.message).toBe("No stream has the id '00000000-0000-4000-8000-000000000000'.");
  });
});

describe('JSON sent without a JSON content type', () => {
  it('as form fields (curl -d): 400 saying the body was read as form data and to send application/json', async () => {
    const body = expectError(
      await text(
        cp,
        'POST',
        `/stream/streams/${OTHER_ID}/signal`,
        '{"signal":"start"}',
        'application/x-www-form-urlencoded',
      ),
      400,
      'invalid_request',
    );
    expect(body.error.message).toMatch(/read as form fields/);
    expect(body.error.message).toMatch(/it is JSON/);
    expect(body.error.message).toContain("-H 'Content-Type: application/json'");
    expect(body.error.details?.expected).toBe('application/json');
  });

  it('as text/plain or with no type: 415 naming the accepted types and how to label JSON', async () => {
    for (const type of ['text/plain', undefined]) {
      const response = await call(cp, {
        method: 'POST',
        url: `/stream/streams/${OTHER_ID}/signal`,
        payload: '{"signal":"start"}',
        headers: type === undefined ? {} : { 'content-type': type },
      });
      const body = expectError(response, 415, 'unsupported_media_type');
      expect(body.error.message).toContain('application/json');
      expect(body.error.message).toContain("for JSON: -H 'Content-Type: application/json'");
    }
  });

  it('real form fields still work', async () => {
    const response = await call(cp, {
      method: 'POST',
      url: `/stream/streams/${OTHER_ID}/signal`,
      payload: 'signal=start',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    ok(response);
  });
});

describe('a misspelt field', () => {
  it('on a stream document: "did you mean" the closest field, pointer kept', async () => {
    const doc = chainStream(STREAM_ID.replace('6f', '7f'));
    const body = expectError(
      await json(cp, 'POST', '/stream/streams', { ...doc, pipes: [{ ...doc.pipes[0], destintion: 'filt' }] }),
      400,
      'invalid_request',
    );
    expect(body.error.details?.path).toBe('/pipes/0/destintion');
    expect(body.error.message).toContain("'destintion' is not a known field; did you mean 'destination'?");
    expect(body.error.details?.didYouMean).toBe('destination');
  });

  it("inside a built-in's config", async () => {
    const doc = chainStream(STREAM_ID.replace('6f', '8f'));
    const gen = { ...doc.nodes[0], config: { sampleRte: 250, amplitudes: [1], frequencies: [10] } };
    const body = expectError(
      await json(cp, 'POST', '/stream/streams', { ...doc, nodes: [gen, ...doc.nodes.slice(1)] }),
      400,
      'invalid_request',
    );
    // It leads, before the required 'sampleRate' it leaves missing.
    expect(body.error.details?.path).toBe('/nodes/0/config/sampleRte');
    expect(body.error.message).toMatch(/'sampleRte' is not a known field; did you mean 'sampleRate'\?/);
    expect(body.error.details?.didYouMean).toBe('sampleRate');
  });

  it('a field far from every known one gets no guess, only the list', async () => {
    const doc = chainStream(STREAM_ID.replace('6f', '9f'));
    const body = expectError(
      await json(cp, 'POST', '/stream/streams', { ...doc, colour: 'red' }),
      400,
      'invalid_request',
    );
    expect(body.error.message).toContain("'colour' is not a known field; known fields:");
    expect(body.error.details?.didYouMean).toBeUndefined();
  });
});

/**
 * A request no route takes is 405 (known path, other method) or 404 whatever its body: the body's
 * content type used to be judged first, so `PATCH /stream/streams` with JSON answered 415.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ControlPlane, controlPlane } from '../support/control-plane.js';
import { chainStream, expectError, OTHER_ID } from './helpers.js';

let cp: ControlPlane;
beforeEach(async () => {
  cp = await controlPlane();
});
afterEach(async () => {
  await cp.close();
});

const BODIES = [
  { name: 'JSON', type: 'application/json', payload: JSON.stringify(chainStream(OTHER_ID)) },
  { name: 'malformed JSON', type: 'application/json', payload: '{"id": ' },
  { name: 'YAML', type: 'text/yaml', payload: 'id: x\n' },
  { name: 'form fields', type: 'application/x-www-form-urlencoded', payload: 'signal=start' },
  { name: 'an unknown type', type: 'application/octet-stream', payload: 'xyz' },
];

describe.each(BODIES)('with a body of $name', ({ type, payload }) => {
  it('PATCH /stream/streams is 405 with Allow, not 415', async () => {
    const answer = await cp.app.inject({
      method: 'PATCH',
      url: '/stream/streams',
      payload,
      headers: { 'content-type': type },
    });
    const error = expectError(answer, 405, 'method_not_allowed');
    expect(answer.headers.allow).toBe('POST, GET');
    expect(error.error.details).toEqual({ allowed: ['POST', 'GET'] });
  });

  it('PATCH /stream/streams/{id}/signal is 405', async () => {
    const answer = await cp.app.inject({
      method: 'PATCH',
      url: `/stream/streams/${OTHER_ID}/signal`,
      payload,
      headers: { 'content-type': type },
    });
    expectError(answer, 405, 'method_not_allowed');
  });

  it('an unknown path is 404', async () => {
    const answer = await cp.app.inject({
      method: 'POST',
      url: '/stream/nothing/here',
      payload,
      headers: { 'content-type': type },
    });
    expectError(answer, 404, 'not_found');
  });
});

it('without a body, PATCH /stream/streams is 405 as before', async () => {
  expectError(await cp.app.inject({ method: 'PATCH', url: '/stream/streams' }), 405, 'method_not_allowed');
});

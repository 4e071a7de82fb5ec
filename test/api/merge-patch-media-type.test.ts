/**
 * Regression: `application/merge-patch+json` was read as plain JSON by every route that takes JSON,
 * while docs/systems.md said it was refused. Now code and docs agree: PATCH /system/config, whose
 * body is a JSON merge patch (RFC 7396), takes it; every other route refuses it with 415, naming
 * the types it takes, since its body is no merge patch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ControlPlane, controlPlane } from '../support/control-plane.js';
import { errorOf, json, type SystemApp, systemApp } from './system/support.js';

const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' };

describe('on the /system paths', () => {
  let s: SystemApp;
  beforeAll(async () => {
    s = await systemApp({ guides: false });
  });
  afterAll(async () => {
    await s.close();
  });

  it('PATCH /system/config takes a merge patch labelled as one, null restoring the default', async () => {
    const set = await s.app.inject({
      method: 'PATCH',
      url: '/system/config',
      headers: MERGE_PATCH,
      payload: JSON.stringify({ lowBatteryThreshold: 30 }),
    });
    expect(set.statusCode).toBe(200);
    expect(json(set)).toMatchObject({ success: true, config: { lowBatteryThreshold: 30 } });
    const back = await s.app.inject({
      method: 'PATCH',
      url: '/system/config',
      headers: MERGE_PATCH,
      payload: JSON.stringify({ lowBatteryThreshold: null }),
    });
    expect(json(back)).toMatchObject({ success: true, config: { lowBatteryThreshold: 15 } });
  });

  it('a malformed merge patch is 400 like malformed JSON', async () => {
    const broken = await s.app.inject({
      method: 'PATCH',
      url: '/system/config',
      headers: MERGE_PATCH,
      payload: '{"lowBatteryThreshold": ',
    });
    expect(broken.statusCode).toBe(400);
  });

  it('PATCH /system/hostname, whose body is no merge patch, refuses the type with 415', async () => {
    const response = await s.app.inject({
      method: 'PATCH',
      url: '/system/hostname',
      headers: MERGE_PATCH,
      payload: JSON.stringify({ hostname: 'lab-2' }),
    });
    expect(response.statusCode).toBe(415);
    const error = errorOf(response);
    expect(error.code).toBe('unsupported_media_type');
    expect(error.details?.accepted).toContain('application/json');
    expect(error.message).toContain('no merge patch: label it application/json');
    expect(json(await s.app.inject({ method: 'GET', url: '/system/hostname' })).hostname).not.toBe('lab-2');
  });

  it('the OpenAPI document lists the type for PATCH /system/config', async () => {
    const doc = json(await s.app.inject({ method: 'GET', url: '/openapi.json' })) as {
      paths: Record<string, { patch?: { requestBody?: { content?: Record<string, unknown> } } }>;
    };
    const content = doc.paths['/system/config']?.patch?.requestBody?.content ?? {};
    expect(Object.keys(content)).toEqual(
      expect.arrayContaining(['application/merge-patch+json', 'application/json']),
    );
  });
});

describe('on the stream paths', () => {
  let cp: ControlPlane;
  beforeAll(async () => {
    cp = await controlPlane();
  });
  afterAll(async () => {
    await cp.close();
  });

  it('POST /stream/streams refuses a body labelled a merge patch with 415', async () => {
    const response = await cp.app.inject({
      method: 'POST',
      url: '/stream/streams',
      headers: MERGE_PATCH,
      payload: JSON.stringify({ nodes: [], pipes: [] }),
    });
    expect(response.statusCode).toBe(415);
    expect(JSON.parse(response.body).error.code).toBe('unsupported_media_type');
  });
});

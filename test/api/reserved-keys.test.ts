/**
 * Regression: `PATCH /system/config {"__proto__": {...}}` answered 200. JSON.parse makes
 * `__proto__` an own member, validation passed, and the merge that copies members by assignment
 * set a prototype instead of a field. Unknown fields are refused everywhere else: `__proto__`,
 * `constructor` and `prototype` are now refused by every body parser (JSON, YAML, form), by
 * `headsetd validate` and by the settings file, with the usual unknown-field error.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/service/config.js';
import { HeadsetdError } from '../../src/core/errors.js';
import { assertDocument } from '../../src/platform/schemas/depth.js';
import { controlPlane, STREAM_ID } from '../support/control-plane.js';
import { assertEnvelope } from './helpers.js';
import { type SystemApp, systemApp } from './system/support.js';

let s: SystemApp;
beforeAll(async () => {
  s = await systemApp({ guides: false });
});
afterAll(async () => {
  await s.close();
});

async function patchConfig(payload: string, type: string) {
  return s.app.inject({ method: 'PATCH', url: '/system/config', payload, headers: { 'content-type': type } });
}

describe('member names of JavaScript objects in bodies', () => {
  it('PATCH /system/config {"__proto__": {...}} is refused as an unknown field (was 200)', async () => {
    const response = await patchConfig('{"__proto__": {"lowBatteryThreshold": 99}}', 'application/json');
    expect(response.statusCode, response.body).toBe(400);
    const body = assertEnvelope(response);
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.message).toContain("'__proto__' is not a known field");
    expect(body.error.details?.path).toBe('/__proto__');
    const config = JSON.parse((await s.app.inject({ method: 'GET', url: '/system/config' })).body);
    expect(config.config.lowBatteryThreshold).not.toBe(99);
  });

  it.each([
    ['JSON', '{"eeg": {"constructor": {"gain": 1}}}', 'application/json', '/eeg/constructor'],
    ['YAML', 'impedance:\n  prototype: 1\n', 'text/yaml', '/impedance/prototype'],
    ['YAML', '__proto__:\n  lowBatteryThreshold: 99\n', 'application/yaml', '/__proto__'],
  ])(
    'a %s body holding a reserved name is refused, pointing at it (%s)',
    async (_kind, payload, type, pointer) => {
      const response = await patchConfig(payload, type);
      expect(response.statusCode, response.body).toBe(400);
      expect(assertEnvelope(response).error.details?.path).toBe(pointer);
    },
  );

  it('a form body with a __proto__ field is refused, not dropped', async () => {
    const cp = await controlPlane();
    try {
      await cp.app.inject({
        method: 'POST',
        url: '/stream/streams',
        payload: { id: STREAM_ID, nodes: [], pipes: [] },
      });
      const response = await cp.app.inject({
        method: 'POST',
        url: `/stream/streams/${STREAM_ID}/signal`,
        payload: 'signal=start&__proto__=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(response.statusCode, response.body).toBe(400);
      expect(assertEnvelope(response).error.details?.path).toBe('/__proto__');
    } finally {
      await cp.close();
    }
  });

  it('a stream document with "constructor" in an open object (meta) is refused too', async () => {
    const cp = await controlPlane();
    try {
      const response = await cp.app.inject({
        method: 'POST',
        url: '/stream/streams',
        payload: `{"id":"${STREAM_ID}","meta":{"constructor":{"x":1}},"nodes":[],"pipes":[]}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(response.statusCode, response.body).toBe(400);
      expect(assertEnvelope(response).error.details?.path).toBe('/meta/constructor');
      expect(cp.manager.list()).toEqual([]);
    } finally {
      await cp.close();
    }
  });

  it('a settings file with __proto__ is refused', () => {
    const file = path.join(s.dataDir, 'settings.json');
    writeFileSync(file, '{"__proto__": {"port": 1}}');
    expect(() => loadSettings({}, {}, file)).toThrow(/'__proto__' is not a known field/);
  });

  it('assertDocument allows the names as values and array items, and refuses them as members', () => {
    expect(() => {
      assertDocument({ a: ['__proto__', 'constructor'], b: 'prototype' });
    }).not.toThrow();
    expect(() => {
      assertDocument(JSON.parse('{"a": [{"prototype": 1}]}'));
    }).toThrow(HeadsetdError);
  });
});

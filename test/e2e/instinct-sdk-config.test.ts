/**
 * The maker's SDK (instinct-py 1.5.1) config store against the real service: create, get, list,
 * update and delete, made as the SDK makes them and checked against its models. Before, POST was a
 * 405 and GET /system/config answered headsetd's configuration object where the SDK iterates a
 * list. Both clients keep their answer on that path: the SDK's bare `Accept: *\/*` gets the list,
 * headsetd's clients (Accept naming application/json) the configuration.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sdkCall } from '../support/instinct-client.js';
import { ConfigEntry, ConfigResponse, listProblems, modelProblems } from '../support/instinct-models.js';
import { json, type Service, startService } from '../support/service.js';

let service: Service;
beforeAll(async () => {
  service = await startService();
});
afterAll(async () => {
  await service.stop();
});

/** DeviceConfig(**data).model_dump(): every field present, the id a fresh UUID when not given. */
function dumped(data: Record<string, unknown>): Record<string, unknown> {
  return {
    key: data.key,
    value: data.value,
    id: data.id ?? crypto.randomUUID(),
    expires_in: data.expires_in ?? null,
    expires_on: data.expires_on ?? null,
    created_at: data.created_at ?? null,
    updated_at: data.updated_at ?? null,
  };
}

describe("the SDK's config store", () => {
  test('create, get, list, update and delete answer the models, and the entry is kept', async () => {
    const created = await sdkCall(service.url, 'POST', '/system/config', {
      json: dumped({ key: 'userPreference.theme', value: 'dark' }),
    });
    expect(modelProblems(ConfigEntry, created.body)).toEqual([]);
    const read = await sdkCall(service.url, 'GET', '/system/config/userPreference.theme');
    expect(modelProblems(ConfigEntry, read.body)).toEqual([]);
    expect(read.body).toMatchObject({ key: 'userPreference.theme', value: 'dark' });

    const list = await sdkCall(service.url, 'GET', '/system/config');
    expect(listProblems(ConfigEntry, list.body)).toEqual([]);
    expect((list.body as { key: string }[]).map((e) => e.key)).toContain('userPreference.theme');

    const updated = await sdkCall(service.url, 'PUT', '/system/config/userPreference.theme', {
      json: dumped({ key: 'userPreference.theme', value: { mode: 'light', contrast: 2 } }),
    });
    expect(modelProblems(ConfigEntry, updated.body)).toEqual([]);
    expect((await sdkCall(service.url, 'GET', '/system/config/userPreference.theme')).body).toMatchObject({
      value: { mode: 'light', contrast: 2 },
    });

    const deleted = await sdkCall(service.url, 'DELETE', '/system/config/userPreference.theme');
    expect(modelProblems(ConfigResponse, deleted.body)).toEqual([]);
    await expect(sdkCall(service.url, 'GET', '/system/config/userPreference.theme')).rejects.toThrow(/^404/);
  });

  test('expires_in "1h" gives an expiry an hour on; a malformed one is refused with 422 naming it', async () => {
    const created = (
      await sdkCall(service.url, 'POST', '/system/config', {
        json: dumped({ key: 'session.authToken', value: 'abc123xyz', expires_in: '1h' }),
      })
    ).body as { expires_on: string; created_at: string };
    expect(Date.parse(created.expires_on) - Date.parse(created.created_at)).toBe(3_600_000);
    await expect(
      sdkCall(service.url, 'POST', '/system/config', {
        json: dumped({ key: 'x', value: 1, expires_in: 'soon' }),
      }),
    ).rejects.toThrow(/^422 .*"path":"\/expires_in"/);
  });

  test('a second create of a key, and an update of a key not stored, are refused', async () => {
    await sdkCall(service.url, 'POST', '/system/config', { json: dumped({ key: 'once', value: 1 }) });
    await expect(
      sdkCall(service.url, 'POST', '/system/config', { json: dumped({ key: 'once', value: 2 }) }),
    ).rejects.toThrow(/^422/);
    await expect(
      sdkCall(service.url, 'PUT', '/system/config/absent', { json: dumped({ key: 'absent', value: 2 }) }),
    ).rejects.toThrow(/^404/);
  });

  test('GET /system/config still answers the device configuration to every client but the SDK (curl, browsers and fetch send */* too)', async () => {
    const clients = [
      { accept: 'application/json' },
      { accept: 'application/json, text/plain, */*' },
      { accept: '*/*', 'user-agent': 'curl/7.88.1' },
      { accept: '*/*', 'user-agent': 'node' },
      { accept: '*/*' },
      { accept: 'application/json', 'user-agent': 'python-requests/2.31.0' },
    ];
    for (const headers of clients) {
      const answer = await json(`${service.url}/system/config`, { headers });
      expect(answer.status).toBe(200);
      expect(answer.body.success).toBe(true);
      expect(answer.body.config.eeg).toBeDefined();
    }
    const entries = await json(`${service.url}/system/config?entries=true`, {
      headers: { accept: 'application/json' },
    });
    expect(Array.isArray(entries.body)).toBe(true);
  });
});

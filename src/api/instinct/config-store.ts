/**
 * The maker's SDK config store (docs/instinct-sdk.md §Config store): key-value entries of apps
 * under /system/config, on the device's ConfigEntries. The SDK's list (GET /system/config) shares
 * its path with the reference's device configuration; which one a request gets is decided by
 * {@link wantsEntryList} in the reference route (api/system/config.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ConfigEntries, ConfigEntry, ConfigEntryInput } from '../../device/config-entries.js';
import { errorResponses } from '../../schemas/responses.js';
import { ConfigDeleteAnswer, ConfigEntry as EntryShape, ConfigEntryBody, tags } from './schemas.js';

/** An entry as the SDK's model reads it (snake case). */
export function entryOut(entry: ConfigEntry): Record<string, unknown> {
  return {
    key: entry.key,
    value: entry.value,
    id: entry.id,
    expires_in: entry.expiresIn,
    expires_on: entry.expiresOn,
    created_at: entry.createdAt,
    updated_at: entry.updatedAt,
  };
}

type EntryBody = {
  key: string;
  value: unknown;
  id?: string | null;
  expires_in?: string | null;
  expires_on?: string | null;
};

function entryIn(body: EntryBody): ConfigEntryInput {
  return {
    key: body.key,
    value: body.value,
    ...(body.id === undefined ? {} : { id: body.id }),
    ...(body.expires_in === undefined ? {} : { expiresIn: body.expires_in }),
    ...(body.expires_on === undefined ? {} : { expiresOn: body.expires_on }),
  };
}

// Whether GET /system/config asks for the SDK's list of entries rather than the device
// configuration. The SDK sends Python `requests`' own headers: the bare wildcard Accept (*/*) and
// `User-Agent: python-requests/…`. Both are needed: curl, browsers and fetch send */* too, and
// they must keep the configuration the API documents there. `?entries=true` asks for the list from
// any client.
export function wantsEntryList(request: FastifyRequest): boolean {
  const query = request.query as { entries?: unknown } | undefined;
  if (query?.entries === 'true' || query?.entries === '1') return true;
  return (
    (request.headers.accept ?? '').trim() === '*/*' &&
    (request.headers['user-agent'] ?? '').startsWith('python-requests/')
  );
}

export function instinctConfigRoutes(app: FastifyInstance, entries: ConfigEntries): void {
  const KeyParams = Type.Object({ key: Type.String() });

  app.post<{ Body: EntryBody }>(
    '/system/config',
    {
      config: { accepts: ['json'] },
      schema: {
        tags,
        summary: 'SDK: store a new entry (key, value, optional expires_in such as 1h, or expires_on)',
        body: ConfigEntryBody,
        response: { 200: EntryShape, ...errorResponses(400, 415, 422, 503, 507) },
      },
    },
    async (request) => entryOut(entries.create(entryIn(request.body))),
  );

  app.get<{ Params: { key: string } }>(
    '/system/config/:key',
    {
      schema: {
        tags,
        summary: 'SDK: read an entry',
        params: KeyParams,
        response: { 200: EntryShape, ...errorResponses(404) },
      },
    },
    async (request) => entryOut(entries.get(request.params.key)),
  );

  app.put<{ Params: { key: string }; Body: EntryBody }>(
    '/system/config/:key',
    {
      config: { accepts: ['json'] },
      schema: {
        tags,
        summary: 'SDK: replace an entry (the body repeats the key)',
        params: KeyParams,
        body: ConfigEntryBody,
        response: { 200: EntryShape, ...errorResponses(400, 404, 415, 422, 503, 507) },
      },
    },
    async (request) => entryOut(entries.update(request.params.key, entryIn(request.body))),
  );

  app.delete<{ Params: { key: string } }>(
    '/system/config/:key',
    {
      schema: {
        tags,
        summary: 'SDK: delete an entry',
        params: KeyParams,
        response: { 200: ConfigDeleteAnswer, ...errorResponses(404, 503, 507) },
      },
    },
    async (request) => {
      const entry = entries.delete(request.params.key);
      return { message: `Entry ${entry.key} deleted.`, success: true, config: entryOut(entry) };
    },
  );
}

/**
 * The maker's SDK config store (docs/instinct-sdk.md §Config store): key-value entries of apps
 * under /system/config, on the device's ConfigEntries. The SDK's list (GET /system/config) shares
 * its path with the reference's device configuration; which one a request gets is decided by
 * `wantsEntryList` (api/sdk-shapes.ts) in the reference route (api/system/config.ts).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { ConfigEntries, ConfigEntryInput } from '../../platform/store/config-entries.js';
import { errorResponses } from '../../platform/schemas/responses.js';
import { ConfigEntry as EntryShape, entryOut } from '../sdk-shapes.js';
import { ConfigDeleteAnswer, ConfigEntryBody, tags } from './schemas.js';

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

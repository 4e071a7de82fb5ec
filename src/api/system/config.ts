/**
 * GET/PATCH /system/config (docs/system-paths.md §/system): the device configuration of
 * device-config.ts, changed by JSON merge patch (RFC 7396), validated, persisted and applied. GET
 * answers the maker's SDK its list of key-value entries instead (docs/instinct-sdk.md §Config store).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errorResponses } from '../../platform/schemas/responses.js';
import { handlerValidated } from '../validation.js';
import {
  applyConfig,
  DeviceConfigSchema,
  effectiveConfig,
  patchConfig,
} from '../../device/settings/config.js';
import type { SystemContext } from './context.js';
import { ConfigEntry, entryOut, wantsEntryList } from '../sdk-shapes.js';

const tags = ['system: device'];
const ConfigAnswer = Type.Object({ success: Type.Literal(true), config: DeviceConfigSchema });

export function configRoutes(
  app: FastifyInstance,
  context: Pick<SystemContext, 'device' | 'entries' | 'settings'>,
): void {
  app.get(
    '/system/config',
    {
      schema: {
        tags,
        summary:
          "The device configuration (defaults filled in); the maker's SDK gets its key-value entries here (Accept: */* from python-requests, or ?entries=true)",
        querystring: Type.Object({
          entries: Type.Optional(
            Type.Enum(['true', 'false', '1', '0'], { description: 'true: the entries list.' }),
          ),
        }),
        response: {
          200: Type.Union([ConfigAnswer, Type.Array(ConfigEntry)]),
          ...errorResponses(400),
        },
      },
    },
    async (request) =>
      wantsEntryList(request)
        ? context.entries.list().map(entryOut)
        : { success: true, config: effectiveConfig(context.settings.configOverrides()) },
  );

  app.patch(
    '/system/config',
    {
      config: { accepts: ['json', 'merge-patch', 'yaml'] },
      schema: {
        tags,
        summary: 'Change the configuration with a JSON merge patch (RFC 7396; null restores the default)',
        consumes: ['application/json', 'application/merge-patch+json', 'text/yaml', 'application/yaml'],
        body: handlerValidated(Type.Object({}, { additionalProperties: true })),
        response: { 200: ConfigAnswer, ...errorResponses(400, 415, 422, 503, 507) },
      },
    },
    async (request) => {
      const previous = context.settings.configOverrides();
      const { overrides, config } = patchConfig(previous, request.body);
      const touchesEeg = typeof request.body === 'object' && request.body !== null && 'eeg' in request.body;
      // Stored first: a store that cannot take it (a full disk) refuses before the device changes.
      context.settings.setConfigOverrides(overrides);
      try {
        await applyConfig(context.device, config, overrides, touchesEeg);
      } catch (error) {
        context.settings.setConfigOverrides(previous);
        throw error;
      }
      return { success: true, config };
    },
  );
}

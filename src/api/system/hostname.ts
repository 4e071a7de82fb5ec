/**
 * GET/PATCH /system/hostname (docs/system-paths.md §/system): an RFC 1123 name kept in the store. The
 * machine itself is never renamed; the name is what the API reports, and it is not accepted in
 * `Host` (any client may set it; docs/security.md §Sockets, rule 1).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errorResponses } from '../../platform/schemas/responses.js';
import { HostnameBody, renameDevice } from '../rename-device.js';
import type { SystemContext } from './context.js';

const tags = ['system: device'];
const HostnameAnswer = Type.Object({ success: Type.Literal(true), hostname: Type.String() });

export function hostnameRoutes(app: FastifyInstance, { settings }: Pick<SystemContext, 'settings'>): void {
  app.get(
    '/system/hostname',
    { schema: { tags, summary: 'The device hostname', response: { 200: HostnameAnswer } } },
    async () => ({ success: true, hostname: settings.hostname() }),
  );

  app.patch<{ Body: { hostname: string } }>(
    '/system/hostname',
    {
      config: { accepts: ['json', 'form', 'yaml'] },
      schema: {
        tags,
        summary: 'Change the device hostname (RFC 1123; stored, the machine is not renamed)',
        body: HostnameBody,
        response: { 200: HostnameAnswer, ...errorResponses(400, 415, 422, 503, 507) },
      },
    },
    async (request) => ({ success: true, hostname: renameDevice(settings, request.body.hostname) }),
  );
}

/**
 * Impedance under /system (docs/system-paths.md §/system): bare maps electrode → Ω, measured at each
 * call (80 ms, every electrode at once). 409 `device_busy` while EEG is
 * acquired: the test current would corrupt it.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errorResponses } from '../../platform/schemas/responses.js';
import { deviceCall, listParam } from '../http-helpers.js';
import type { SystemContext } from './context.js';
import { ElectrodeListQuery, ElectrodeNumberMap } from './schemas.js';
import { requirePart } from '../../device/capabilities.js';

const tags = ['system: impedance'];

export function impedanceRoutes(app: FastifyInstance, context: Pick<SystemContext, 'device'>): void {
  const { device } = context;

  app.get<{ Querystring: { channels?: string[] } }>(
    '/system/sensors/impedance',
    {
      config: { needs: ['impedance'] },
      schema: {
        tags,
        summary: 'Measure the impedance (Ω) of the named electrodes (all when none)',
        querystring: Type.Object({ channels: ElectrodeListQuery }),
        response: { 200: ElectrodeNumberMap, ...errorResponses(400, 409, 422, 503) },
      },
    },
    async (request) =>
      deviceCall(
        () => requirePart(device, 'impedance').measure(listParam(request.query.channels)),
        '/querystring',
      ),
  );

  app.get(
    '/system/sensors/impedance/all',
    {
      config: { needs: ['impedance'] },
      schema: {
        tags,
        summary: 'Measure the impedance (Ω) of all 21 electrodes',
        response: { 200: ElectrodeNumberMap, ...errorResponses(409, 503) },
      },
    },
    async () => requirePart(device, 'impedance').measure(),
  );
}

/**
 * GET /system/status and GET /system/version (docs/system-paths.md).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { SystemContext } from './index.js';
import { AnyObject } from './schemas.js';

const tags = ['system: device'];

/** The API's version: bumped when a path or shape changes incompatibly. */
export const API_VERSION = '1';

export function statusRoutes(app: FastifyInstance, context: SystemContext): void {
  const { device } = context;

  app.get(
    '/system/status',
    {
      schema: {
        tags,
        summary: 'Device state: idle, acquiring, measuring_impedance or moving, with EEG, motors and streams',
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            status: Type.Object({
              state: Type.Enum(['idle', 'acquiring', 'measuring_impedance', 'moving']),
              eeg: AnyObject,
              impedance: Type.Object({ measuring: Type.Boolean() }),
              motors: Type.Object({ moving: Type.Array(Type.String()), stalled: Type.Array(Type.String()) }),
              streams: Type.Object({ total: Type.Integer(), running: Type.Integer() }),
              battery: Type.Object({ percent: Type.Number(), isCharging: Type.Boolean() }),
              uptimeSeconds: Type.Number({ description: 'Seconds since the service started.' }),
              version: Type.String({ description: 'The service version.' }),
            }),
          }),
        },
      },
    },
    async () => {
      const status = device.status();
      return {
        success: true,
        status: {
          state: status.state,
          eeg: status.eeg,
          impedance: status.impedance,
          motors: status.motors,
          streams: context.streams(),
          battery: status.battery,
          uptimeSeconds: Math.round((Date.now() - context.startedAt) / 100) / 10,
          version: context.version,
        },
      };
    },
  );

  app.get(
    '/system/version',
    {
      schema: {
        tags,
        summary: 'API, service and hardware versions',
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            version: Type.Object({
              api: Type.String(),
              service: Type.String(),
              hardware: Type.String({ description: 'Hardware revision of the device.' }),
              firmware: Type.String(),
              device: Type.String({ description: 'simulated, replay or hardware.' }),
            }),
          }),
        },
      },
    },
    async () => {
      const info = device.info();
      return {
        success: true,
        version: {
          api: API_VERSION,
          service: context.version,
          hardware: info.hardware,
          firmware: info.firmware,
          device: info.kind,
        },
      };
    },
  );
}

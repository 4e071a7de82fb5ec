/**
 * IMU under /system (docs/system-paths.md §/system): position in mm from rest, orientation in degrees,
 * of the primary IMU or of one of the band's four nodes.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { IMU_NODE_COUNT } from '../../device/headset.js';
import { HeadsetdError } from '../../core/errors.js';
import { errorResponses } from '../../platform/schemas/responses.js';
import { deviceRead } from '../http-helpers.js';
import type { SystemContext } from './context.js';
import { ImuReadingShape } from './schemas.js';
import { imuSensor } from '../sdk-shapes.js';
import { requirePart } from '../../device/capabilities.js';

const tags = ['system: imu'];

/** The reading, with the fields the maker's SDK reads as its `imu` sensor when nodeIndex is omitted. */
const ImuWithSensor = Type.Object({
  ...ImuReadingShape.properties,
  type: Type.Optional(Type.Literal('imu')),
  enabled: Type.Optional(Type.Boolean()),
  sample_rate: Type.Optional(Type.Integer({ description: 'The output data rate, Hz.' })),
  range: Type.Optional(Type.Null()),
});

export function imuRoutes(app: FastifyInstance, context: Pick<SystemContext, 'device'>): void {
  const { device } = context;

  app.get(
    '/system/sensors/imu/primary',
    {
      config: { needs: ['imu'] },
      schema: { tags, summary: 'The primary IMU', response: { 200: ImuReadingShape } },
    },
    async () => requirePart(device, 'imu').primary(),
  );

  app.get<{ Querystring: { nodeIndex?: string } }>(
    '/system/sensors/imu',
    {
      config: { needs: ['imu'] },
      schema: {
        tags,
        summary: `One IMU node (nodeIndex 0..${IMU_NODE_COUNT - 1}); the primary IMU when nodeIndex is omitted`,
        querystring: Type.Object({
          nodeIndex: Type.Optional(Type.String({ description: `Integer 0..${IMU_NODE_COUNT - 1}.` })),
        }),
        response: { 200: ImuWithSensor, ...errorResponses(400, 422) },
      },
    },
    async (request) => {
      const raw = request.query.nodeIndex;
      // The maker's SDK reads this path as its `imu` sensor: its fields are added (docs/instinct-sdk.md).
      if (raw === undefined) {
        const imu = requirePart(device, 'imu');
        return { ...imu.primary(), ...imuSensor(imu) };
      }
      // Text is checked here so that "1.5", "-1" and "x" all answer validation_failed naming the range.
      const nodeIndex = /^\s*-?\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : Number.NaN;
      if (Number.isNaN(nodeIndex)) {
        throw new HeadsetdError(
          'validation_failed',
          `nodeIndex must be an integer from 0 to ${IMU_NODE_COUNT - 1}; got ${JSON.stringify(raw)}.`,
          { path: '/querystring/nodeIndex', min: 0, max: IMU_NODE_COUNT - 1 },
        );
      }
      return deviceRead(() => requirePart(device, 'imu').node(nodeIndex), '/querystring');
    },
  );
}

/**
 * POST /system/debug/command (docs/system-paths.md §/system): one packet to the device's peripheral bus,
 * answered with the packet echoed and `cmdResp`/`data` filled by the peripheral (the registers are
 * documented in docs/device.md). Numbers are accepted where the reference declares strings.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { DebugCommand } from '../../device/headset.js';
import { errorResponses } from '../../platform/schemas/responses.js';
import { DebugBody, runDebugCommand } from '../debug-command.js';
import type { SystemContext } from './context.js';

const tags = ['system: device'];

const Packet = Type.Object({
  txnID: Type.Number(),
  packetType: Type.Number(),
  srcDevice: Type.Number(),
  cmdResp: Type.Number({ description: 'Status: 0 ok, else a peripheral error code (docs/device.md).' }),
  peripheral: Type.Number(),
  peripheralChannels: Type.Number(),
  parameter: Type.Array(Type.Number()),
  data: Type.Array(Type.Number()),
});

export function debugRoutes(app: FastifyInstance, { device }: Pick<SystemContext, 'device'>): void {
  app.post<{ Body: DebugCommand }>(
    '/system/debug/command',
    {
      config: { accepts: ['json', 'yaml'], needs: ['peripheralBus'] },
      schema: {
        tags,
        summary: 'Send one packet to the peripheral bus',
        body: DebugBody,
        response: {
          200: Type.Object({ success: Type.Literal(true), response: Packet }),
          ...errorResponses(400, 415, 422),
        },
      },
    },
    async (request) => ({ success: true, response: await runDebugCommand(device, request.body) }),
  );
}

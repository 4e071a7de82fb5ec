/**
 * Motors under /system (docs/system-paths.md §/system): positions in steps (0 = MIN, retracted .. 100 =
 * MAX), state codes (0 idle, 1 moving, 2 braked, 3 stalled, 4 fault). POST answers the state codes
 * right after the command; `waitUntilComplete` answers the final state codes once every commanded
 * motor has stopped; `getFinalPosition` waits too and answers the final positions.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ELECTRODES, type Electrode } from '../../core/electrodes.js';
import { MOTOR_MOVEMENTS, type MotorCommand } from '../../device/headset.js';
import { errorResponses } from '../../platform/schemas/responses.js';
import { deviceCall, deviceRead, listParam, QueryBoolean, queryBoolean } from '../http-helpers.js';
import type { SystemContext } from './context.js';
import { ElectrodeListQuery, ElectrodeNumberMap } from './schemas.js';
import { requirePart } from '../../device/capabilities.js';

const tags = ['system: motors'];

const ElectrodeQuery = Type.Object({ electrode: ElectrodeListQuery });
const WaitQuery = Type.Object({ waitUntilComplete: QueryBoolean, getFinalPosition: QueryBoolean });
type WaitQueryType = { waitUntilComplete?: string; getFinalPosition?: string };

const MoveBody = Type.Object(
  {
    configuration: Type.Array(
      Type.Object(
        {
          electrode: Type.String({ description: `One of ${ELECTRODES.join(', ')}, any case.` }),
          movement: Type.String({ description: `${MOTOR_MOVEMENTS.join(', ')}, any case.` }),
          displacement: Type.Optional(
            Type.Number({ description: 'Steps (0.1 mm), 0 < d ≤ 100; required for RETRACT and RELEASE.' }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const ResetBody = Type.Object(
  { position: Type.String({ description: 'MIN (fully retracted) or MAX (fully extended).' }) },
  { additionalProperties: false },
);

export function motorRoutes(app: FastifyInstance, { device }: Pick<SystemContext, 'device'>): void {
  app.get<{ Querystring: { electrode?: string[] } }>(
    '/system/motors/position',
    {
      config: { needs: ['motors'] },
      schema: {
        tags,
        summary: 'Motor positions in steps (0 MIN .. 100 MAX)',
        querystring: ElectrodeQuery,
        response: { 200: ElectrodeNumberMap, ...errorResponses(400, 422) },
      },
    },
    async (request) =>
      deviceRead(
        () => requirePart(device, 'motors').positions(listParam(request.query.electrode)),
        '/querystring',
      ),
  );

  app.get<{ Querystring: { electrode?: string[] } }>(
    '/system/motors/state',
    {
      config: { needs: ['motors'] },
      schema: {
        tags,
        summary: 'Motor state codes: 0 idle, 1 moving, 2 braked, 3 stalled, 4 fault',
        querystring: ElectrodeQuery,
        response: { 200: ElectrodeNumberMap, ...errorResponses(400, 422) },
      },
    },
    async (request) =>
      deviceRead(
        () => requirePart(device, 'motors').states(listParam(request.query.electrode)),
        '/querystring',
      ),
  );

  /** The answer after a command: state codes now, final state codes, or final positions. */
  const answer = async (electrodes: readonly Electrode[], query: WaitQueryType) => {
    const finalPosition = queryBoolean(query.getFinalPosition, 'getFinalPosition');
    const wait = finalPosition || queryBoolean(query.waitUntilComplete, 'waitUntilComplete');
    const motors = requirePart(device, 'motors');
    if (wait) await motors.waitUntilComplete(electrodes);
    return finalPosition ? motors.positions(electrodes) : motors.states(electrodes);
  };

  app.post<{ Querystring: WaitQueryType; Body: { configuration: MotorCommand[] } }>(
    '/system/motors/position',
    {
      config: { accepts: ['json', 'yaml'], needs: ['motors'] },
      schema: {
        tags,
        summary: 'Move motors: RETRACT/RELEASE by displacement steps, STOP, BRAKE',
        querystring: WaitQuery,
        body: MoveBody,
        response: { 200: ElectrodeNumberMap, ...errorResponses(400, 409, 415, 422) },
      },
    },
    async (request) => {
      // Flags are checked before anything moves.
      queryBoolean(request.query.getFinalPosition, 'getFinalPosition');
      queryBoolean(request.query.waitUntilComplete, 'waitUntilComplete');
      const commands = request.body.configuration;
      const states = await deviceCall(() => requirePart(device, 'motors').move(commands), '');
      const electrodes = Object.keys(states) as Electrode[];
      return answer(electrodes, request.query);
    },
  );

  app.post<{ Querystring: WaitQueryType; Body: { position: string } }>(
    '/system/motors/position/reset',
    {
      config: { accepts: ['json', 'yaml', 'form'], needs: ['motors'] },
      schema: {
        tags,
        summary: 'Move all 21 motors to MIN or MAX',
        querystring: WaitQuery,
        body: ResetBody,
        response: { 200: ElectrodeNumberMap, ...errorResponses(400, 409, 415, 422) },
      },
    },
    async (request) => {
      queryBoolean(request.query.getFinalPosition, 'getFinalPosition');
      queryBoolean(request.query.waitUntilComplete, 'waitUntilComplete');
      await deviceCall(() => requirePart(device, 'motors').reset(request.body.position), '');
      return answer(ELECTRODES, request.query);
    },
  );
}

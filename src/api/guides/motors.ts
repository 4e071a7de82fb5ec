/**
 * Motor paths of the guides (docs/system-paths.md §Guide paths): POST /motors/control (one motor: move to
 * an absolute position, stop, brake, home) and POST /motors/apply-pressure (seat electrodes and
 * press them by a profile's steps; a job, guides/electrode-jobs.ts).
 */
import type { ElectrodeJobContext } from '../../guides/electrode-jobs.js';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { type Electrode, MIXED_CASE, mixedCaseMap } from '../../core/electrodes.js';
import { MOTOR_MAX_POSITION, type MotorCommand } from '../../device/headset.js';
import { MOTOR_SPEED } from '../../device/simulated/index.js';
import { HeadsetdError } from '../../core/errors.js';
import { errorResponses } from '../../platform/schemas/responses.js';
import { assertNotAcquiring, electrodeFrom, electrodesFrom } from '../../guides/context.js';
import { JobAccepted } from '../job-shapes.js';
import { answerElectrodeJob, WaitQuery, type WaitQueryType } from './job-answers.js';
import { seatElectrodes } from '../../guides/optimizer.js';
import { STRATEGIES } from '../../guides/strategies.js';
import { requirePart } from '../../device/capabilities.js';

const tags = ['guides: motors'];

/** Steps pressed past contact by each pressure profile. */
export const PRESSURE_PROFILES = { light: 3, medium: 6, firm: 10 } as const;
/** Steps a customization may ask past contact (the device stalls at its safe force, 20 on the simulated headset). */
export const MAX_CUSTOM_PRESS = 15;

type ControlBody = {
  motor: string;
  action: 'move' | 'stop' | 'brake' | 'home';
  parameters?: { position?: number; speed?: number };
};

type PressureBody = {
  profile: keyof typeof PRESSURE_PROFILES;
  electrodes?: string | string[];
  customization?: Record<string, number>;
};

export function guideMotorRoutes(app: FastifyInstance, context: ElectrodeJobContext): void {
  const { device, locks } = context;

  app.post<{ Body: ControlBody }>(
    '/motors/control',
    {
      config: { accepts: ['json', 'yaml'], needs: ['motors'] },
      schema: {
        tags,
        summary:
          'Drive one motor: move to parameters.position, stop, brake or home (to MIN); answers at once',
        body: Type.Object(
          {
            motor: Type.String({ description: 'Electrode name, any case.' }),
            action: Type.Enum(['move', 'stop', 'brake', 'home']),
            parameters: Type.Optional(
              Type.Object(
                {
                  position: Type.Optional(
                    Type.Number({
                      minimum: 0,
                      maximum: MOTOR_MAX_POSITION,
                      description: 'Target in steps (move).',
                    }),
                  ),
                  speed: Type.Optional(
                    Type.Number({
                      exclusiveMinimum: 0,
                      maximum: MOTOR_SPEED,
                      description: `Steps/s, at most ${MOTOR_SPEED}: the motors run at a fixed ${MOTOR_SPEED} steps/s, so this is accepted as an upper bound only.`,
                    }),
                  ),
                },
                { additionalProperties: false },
              ),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            motor: Type.String(),
            action: Type.String(),
            position: Type.Number(),
            targetPosition: Type.Union([Type.Number(), Type.Null()]),
            state: Type.Integer(),
            speed: Type.Number({ description: 'Steps/s the motor runs at.' }),
          }),
          ...errorResponses(400, 409, 415, 422),
        },
      },
    },
    async (request) => {
      const { action, parameters } = request.body;
      const motor = electrodeFrom(request.body.motor, '/motor');
      if (locks.isHeld(motor)) {
        const busy = locks.busyError([motor]);
        throw new HeadsetdError(busy.code, busy.message, { ...busy.details, path: '/motor' });
      }
      const current = requirePart(device, 'motors').positions([motor])[motor] ?? 0;
      let target: number | null = null;
      let command: MotorCommand | undefined;
      if (action === 'move') {
        if (parameters?.position === undefined) {
          throw new HeadsetdError('invalid_request', 'A move needs parameters.position (steps, 0..100).', {
            path: '/parameters/position',
          });
        }
        target = parameters.position;
        const delta = target - current;
        if (Math.abs(delta) > 1e-6)
          command = {
            electrode: motor,
            movement: delta > 0 ? 'RELEASE' : 'RETRACT',
            displacement: Math.abs(delta),
          };
      } else if (action === 'home') {
        target = 0;
        if (current > 0) command = { electrode: motor, movement: 'RETRACT', displacement: current };
      } else {
        command = { electrode: motor, movement: action === 'stop' ? 'STOP' : 'BRAKE' };
      }
      if (command !== undefined) await requirePart(device, 'motors').move([command]);
      return {
        success: true,
        motor: MIXED_CASE[motor],
        action,
        position: requirePart(device, 'motors').positions([motor])[motor] ?? 0,
        targetPosition: target,
        state: requirePart(device, 'motors').states([motor])[motor] ?? 0,
        speed: MOTOR_SPEED,
      };
    },
  );

  app.post<{ Body: PressureBody; Querystring: WaitQueryType }>(
    '/motors/apply-pressure',
    {
      config: { accepts: ['json', 'yaml'], needs: ['motors', 'impedance'] },
      schema: {
        tags,
        summary: `Seat electrodes on the scalp and press them by a profile (light ${PRESSURE_PROFILES.light}, medium ${PRESSURE_PROFILES.medium}, firm ${PRESSURE_PROFILES.firm} steps past contact); a job (202) unless ?wait=true`,
        querystring: WaitQuery,
        body: Type.Object(
          {
            profile: Type.Enum(Object.keys(PRESSURE_PROFILES)),
            electrodes: Type.Optional(
              Type.Union([Type.String(), Type.Array(Type.String())], {
                description: '"all" (default) or names.',
              }),
            ),
            customization: Type.Optional(
              Type.Record(Type.String(), Type.Number({ minimum: 0, maximum: MAX_CUSTOM_PRESS }), {
                description: 'Electrode → steps past contact, replacing the profile for that electrode.',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            profile: Type.String(),
            results: Type.Record(
              Type.String(),
              Type.Object({
                pressedSteps: Type.Number(),
                position: Type.Number(),
                impedance: Type.Number({ description: 'kΩ after pressing.' }),
                contact: Type.Boolean(),
                state: Type.Integer(),
              }),
            ),
          }),
          202: JobAccepted,
          ...errorResponses(400, 409, 415, 422),
        },
      },
    },
    async (request, reply) => {
      const { profile } = request.body;
      const electrodes = electrodesFrom(request.body.electrodes, '/electrodes');
      const custom = new Map<Electrode, number>();
      for (const [name, steps] of Object.entries(request.body.customization ?? {})) {
        custom.set(electrodeFrom(name, `/customization/${name}`), steps);
      }
      for (const e of custom.keys()) if (!electrodes.includes(e)) electrodes.push(e);
      assertNotAcquiring(device, 'applying pressure', 'motors');
      const press = (e: Electrode): number => custom.get(e) ?? PRESSURE_PROFILES[profile];
      return answerElectrodeJob(context, reply, request.query, {
        operation: 'motors.apply-pressure',
        holder: 'apply-pressure',
        electrodes,
        run: async ({ signal, progress }) => {
          const results = await seatElectrodes(device, electrodes, press, STRATEGIES.research, {
            signal,
            onRound: progress.onRound,
          });
          const states = requirePart(device, 'motors').states(electrodes);
          const out: Partial<Record<Electrode, object>> = {};
          for (const [e, r] of results) {
            out[e] = {
              pressedSteps: r.reached ? press(e) : 0,
              position: r.position,
              impedance: r.after,
              contact: r.reached,
              state: states[e] ?? 0,
            };
          }
          return { profile, results: mixedCaseMap(out) };
        },
      });
    },
  );
}

/** POST/GET /electrodes/impedance/schedule and DELETE /electrodes/impedance/schedule/{id} (schedules.ts). */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errorResponses } from '../../platform/schemas/responses.js';
import { type ImpedanceSchedules, type ScheduleRequest, UNIT_MS } from '../../guides/schedules.js';

const tags = ['guides: impedance'];

const ScheduleView = Type.Object({
  scheduleId: Type.String(),
  interval: Type.Number(),
  unit: Type.String(),
  duration: Type.Union([Type.Number(), Type.Null()]),
  action: Type.String(),
  thresholdIncrease: Type.Number(),
  checks: Type.Integer(),
  skipped: Type.Integer({
    description: 'Checks skipped while EEG was acquired or the electrodes were busy.',
  }),
  endsAt: Type.String({ description: 'ISO 8601.' }),
  baseline: Type.Union([Type.Record(Type.String(), Type.Number()), Type.Null()], {
    description: 'kΩ of the first check.',
  }),
});

export function scheduleRoutes(app: FastifyInstance, schedules: ImpedanceSchedules): void {
  app.post<{ Body: ScheduleRequest }>(
    '/electrodes/impedance/schedule',
    {
      config: { accepts: ['json', 'yaml'], needs: ['impedance'] },
      schema: {
        tags,
        summary:
          'Check impedance every interval; a channel risen by more than thresholdIncrease % raises a system event',
        body: Type.Object(
          {
            interval: Type.Number({ exclusiveMinimum: 0, description: 'In unit; at least 1 s.' }),
            unit: Type.Enum(Object.keys(UNIT_MS), { description: 's, m or h.' }),
            duration: Type.Optional(
              Type.Number({
                exclusiveMinimum: 0,
                description: 'In unit; at most 7 days; until deleted (7 days) when omitted.',
              }),
            ),
            action: Type.Enum(['check', 'optimize']),
            thresholdIncrease: Type.Number({ exclusiveMinimum: 0, maximum: 10_000, description: '%.' }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            scheduleId: Type.String(),
            schedule: ScheduleView,
          }),
          ...errorResponses(400, 415, 422),
        },
      },
    },
    async (request) => {
      const schedule = schedules.create(request.body);
      return { success: true, scheduleId: schedule.scheduleId, schedule };
    },
  );

  app.get(
    '/electrodes/impedance/schedule',
    {
      schema: {
        tags,
        summary: 'The schedules running',
        response: { 200: Type.Object({ success: Type.Literal(true), schedules: Type.Array(ScheduleView) }) },
      },
    },
    async () => ({ success: true, schedules: schedules.list() }),
  );

  app.delete<{ Params: { id: string } }>(
    '/electrodes/impedance/schedule/:id',
    {
      schema: {
        tags,
        summary: 'Stop and remove a schedule',
        params: Type.Object({ id: Type.String() }),
        response: {
          200: Type.Object({ success: Type.Literal(true), scheduleId: Type.String() }),
          ...errorResponses(404),
        },
      },
    },
    async (request) => ({ success: true, scheduleId: schedules.delete(request.params.id).scheduleId }),
  );
}

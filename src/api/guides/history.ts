/**
 * Impedance history and snapshots of the guide paths (docs/system-paths.md §Guide paths): readings of
 * sessions and schedules from the store, and named snapshots of a fresh measurement of all 21.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ELECTRODES, MIXED_CASE, mixedCaseMap } from '../../core/electrodes.js';
import { errorResponses } from '../../platform/schemas/responses.js';
import { listParam } from '../http-helpers.js';
import { assertNotAcquiring, electrodesFrom, type GuidesContext } from '../../guides/context.js';
import { ohmsToKiloohms } from '../../guides/impedance-sessions.js';
import { requirePart } from '../../device/capabilities.js';

const tags = ['guides: impedance'];

/** timeRange values and their length in ms. */
export const TIME_RANGES = {
  '15m': 15 * 60_000,
  '1h': 3_600_000,
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
} as const;
type TimeRange = keyof typeof TIME_RANGES;

const Values = Type.Record(Type.String(), Type.Number(), { description: 'Electrode (mixed case) → kΩ.' });
const Snapshot = Type.Object({
  id: Type.String(),
  name: Type.String(),
  notes: Type.String(),
  timestamp: Type.String({ description: 'ISO 8601.' }),
  values: Values,
});

export function historyRoutes(app: FastifyInstance, context: Pick<GuidesContext, 'device' | 'store'>): void {
  app.get<{ Querystring: { sessionId?: string; timeRange?: TimeRange; channels?: string[] } }>(
    '/electrodes/impedance/history',
    {
      schema: {
        tags,
        summary: 'Stored readings (kΩ) of sessions and schedules over a time range',
        querystring: Type.Object({
          sessionId: Type.Optional(Type.String({ description: 'One session (or schedule) only.' })),
          timeRange: Type.Optional(Type.Enum(Object.keys(TIME_RANGES), { description: 'Default 1h.' })),
          channels: Type.Optional(
            Type.Array(Type.String(), { description: 'Names, any case; repeated keys or a comma list.' }),
          ),
        }),
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            channels: Type.Array(Type.String()),
            timeRange: Type.String(),
            timeline: Type.Array(Type.Object({ timestamp: Type.Number(), values: Values })),
          }),
          ...errorResponses(400, 422),
        },
      },
    },
    async (request) => {
      const range = request.query.timeRange ?? '1h';
      const channels = electrodesFrom(listParam(request.query.channels), '/querystring/channels');
      const readings = context.store.history(
        Date.now() - TIME_RANGES[range],
        request.query.sessionId,
        channels,
      );
      const present = ELECTRODES.filter(
        (e) => channels.includes(e) && readings.some((r) => r.values[e] !== undefined),
      );
      return {
        success: true,
        channels: present.map((e) => MIXED_CASE[e]),
        timeRange: range,
        timeline: readings.map((r) => ({ timestamp: r.timestamp, values: mixedCaseMap(r.values) })),
      };
    },
  );

  app.post<{ Body: { name: string; notes?: string } }>(
    '/electrodes/impedance/snapshot',
    {
      config: { accepts: ['json', 'yaml', 'form'], needs: ['impedance'] },
      schema: {
        tags,
        summary: 'Measure all 21 electrodes and keep the values under a name',
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 200 }),
            notes: Type.Optional(Type.String({ maxLength: 10_000 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ success: Type.Literal(true), snapshot: Snapshot }),
          ...errorResponses(400, 409, 415, 422, 503, 507),
        },
      },
    },
    async (request) => {
      assertNotAcquiring(context.device, 'taking an impedance snapshot', 'impedance');
      const values = ohmsToKiloohms(await requirePart(context.device, 'impedance').measure());
      const snapshot = context.store.addSnapshot(request.body.name, request.body.notes ?? '', {
        timestamp: Date.now(),
        values,
      });
      return { success: true, snapshot: { ...snapshot, values: mixedCaseMap(snapshot.values) } };
    },
  );

  app.get(
    '/electrodes/impedance/snapshots',
    {
      schema: {
        tags,
        summary: 'The stored snapshots, oldest first',
        response: { 200: Type.Object({ success: Type.Literal(true), snapshots: Type.Array(Snapshot) }) },
      },
    },
    async () => ({
      success: true,
      snapshots: context.store.snapshots().map((s) => ({ ...s, values: mixedCaseMap(s.values) })),
    }),
  );
}

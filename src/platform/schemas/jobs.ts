/**
 * A job as clients read it (docs/systems.md §Jobs): GET /system/jobs/{id} answers it, and
 * WebSocket GET /system/events carries it at each change. With it, the progress the electrode
 * operations (prepare, optimize, adjust, apply-pressure: every job today) report per electrode.
 * One source for the OpenAPI document, the dashboard's types, the service's events
 * (events/hub.ts) and the electrode operations' progress (guides/electrode-jobs.ts).
 */
import { Type } from 'typebox';

/** Why the closed loop ended for an electrode (guides/optimizer.ts). */
export const ElectrodeEndReason = Type.Enum(
  ['target_reached', 'attempts_spent', 'pressure_limit', 'stalled', 'no_contact', 'fault'],
  { description: 'Why the loop ended for the electrode.' },
);

/** One electrode of an electrode operation, as its job's progress reports it. */
export const ElectrodeProgressShape = Type.Object({
  done: Type.Boolean({ description: "The electrode has left the operation's loop." }),
  position: Type.Number({ description: 'Motor position, steps (0..100).' }),
  state: Type.Integer({ description: 'Motor state code: 0 idle, 1 moving, 2 braked, 3 stalled, 4 fault.' }),
  impedance: Type.Union([Type.Number(), Type.Null()], {
    description: 'kΩ of the latest measurement in this operation; null before the first.',
  }),
  attempts: Type.Optional(Type.Integer({ description: 'Press (or relief) moves made after contact.' })),
  reason: Type.Optional(ElectrodeEndReason),
});

/** The whole progress of an electrode operation. */
export const ElectrodeJobProgressShape = Type.Object({
  total: Type.Integer({ description: 'Electrodes in the operation.' }),
  completed: Type.Integer({ description: 'Electrodes done.' }),
  electrodes: Type.Record(Type.String(), ElectrodeProgressShape, {
    description: 'Mixed-case electrode name → its progress.',
  }),
});

export const JobShape = Type.Object({
  id: Type.String(),
  operation: Type.String({ description: 'What runs, e.g. electrodes.prepare or electrodes.optimize.' }),
  status: Type.Enum(['running', 'completed', 'failed', 'cancelled']),
  createdAt: Type.String({ description: 'ISO 8601.' }),
  updatedAt: Type.String({ description: 'ISO 8601: the last progress report or the end.' }),
  finishedAt: Type.Union([Type.String(), Type.Null()], { description: 'ISO 8601; null while running.' }),
  // The registry runs any operation; the electrode operations (every one today) report these.
  progress: Type.Object(
    {
      total: Type.Optional(ElectrodeJobProgressShape.properties.total),
      completed: Type.Optional(ElectrodeJobProgressShape.properties.completed),
      electrodes: Type.Optional(ElectrodeJobProgressShape.properties.electrodes),
    },
    {
      additionalProperties: true,
      description:
        "The operation's progress. Electrode operations: {total, completed, electrodes: {Name: {done, position, state, impedance (kΩ or null), attempts?, reason?}}}.",
    },
  ),
  result: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
    description: 'Once completed: what the operation answers with ?wait=true (without success); else null.',
  }),
  error: Type.Union(
    [
      Type.Object({
        code: Type.String(),
        message: Type.String(),
        details: Type.Optional(Type.Object({}, { additionalProperties: true })),
      }),
      Type.Null(),
    ],
    { description: 'Why the job failed, or the cancellation; null otherwise.' },
  ),
});

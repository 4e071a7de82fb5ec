/**
 * The shapes of a job (docs/systems.md §Jobs) as the API answers it: its path, the job object, and
 * the 202 answer of an operation started as a job. The /system plugin serves the jobs; the guide
 * paths start them.
 */
import { Type } from 'typebox';

/** Where a job is read and cancelled (the `Location` of a 202 answer). */
export function jobPath(id: string): string {
  return `/system/jobs/${id}`;
}

export const JobShape = Type.Object({
  id: Type.String(),
  operation: Type.String({ description: 'What runs, e.g. electrodes.prepare or electrodes.optimize.' }),
  status: Type.Enum(['running', 'completed', 'failed', 'cancelled']),
  createdAt: Type.String({ description: 'ISO 8601.' }),
  updatedAt: Type.String({ description: 'ISO 8601: the last progress report or the end.' }),
  finishedAt: Type.Union([Type.String(), Type.Null()], { description: 'ISO 8601; null while running.' }),
  progress: Type.Object(
    {},
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

export const JobAnswer = Type.Object({ success: Type.Literal(true), job: JobShape });

/** The 202 answer of an operation started as a job, for route schemas. */
export const JobAccepted = {
  ...JobAnswer,
  description:
    'Accepted: the operation runs as a job. Read it at the Location (GET), cancel it there (DELETE); add ?wait=true to get the final answer instead.',
  headers: { Location: Type.String({ description: 'The job: /system/jobs/{id}.' }) },
};

/**
 * The shapes of a job (docs/systems.md §Jobs) as the API answers it: its path, the job object (its
 * schema in platform/schemas/jobs.ts, shared with the events socket), and the 202 answer of an operation
 * started as a job. The /system plugin serves the jobs; the guide paths start them.
 */
import { Type } from 'typebox';
import { JobShape } from '../platform/schemas/jobs.js';

export { JobShape };

/** Where a job is read and cancelled (the `Location` of a 202 answer). */
export function jobPath(id: string): string {
  return `/system/jobs/${id}`;
}

export const JobAnswer = Type.Object({ success: Type.Literal(true), job: JobShape });

/** The 202 answer of an operation started as a job, for route schemas. */
export const JobAccepted = {
  ...JobAnswer,
  description:
    'Accepted: the operation runs as a job. Read it at the Location (GET), cancel it there (DELETE); add ?wait=true to get the final answer instead.',
  headers: { Location: Type.String({ description: 'The job: /system/jobs/{id}.' }) },
};

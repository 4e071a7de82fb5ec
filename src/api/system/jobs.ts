/**
 * The device's long operations as resources (docs/systems.md §Jobs): GET /system/jobs lists the
 * jobs kept, GET /system/jobs/{id} reads one (status, progress, result or error), DELETE cancels
 * a running one and answers once it has stopped. The registry itself is src/platform/jobs/jobs.ts.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { JOB_RETENTION_MS, type JobRecord, JOBS_KEPT } from '../../platform/jobs/jobs.js';
import { HeadsetdError } from '../../core/errors.js';
import { errorResponses } from '../../platform/schemas/responses.js';
import { JobAnswer, JobShape } from '../job-shapes.js';
import type { SystemContext } from './context.js';

const tags = ['system: jobs'];

const IdParams = Type.Object({ id: Type.String({ description: 'The job id.' }) });

const KEPT_TEXT = `${JOB_RETENTION_MS / 60_000} minutes (the last ${JOBS_KEPT})`;

function found(id: string, record: JobRecord | undefined): JobRecord {
  if (record === undefined) {
    throw new HeadsetdError(
      'job_not_found',
      `No job has the id ${JSON.stringify(id)}; finished jobs are kept for ${KEPT_TEXT}: GET /system/jobs lists them.`,
      { path: '/params/id' },
    );
  }
  return record;
}

export function jobRoutes(app: FastifyInstance, context: Pick<SystemContext, 'jobs'>): void {
  const { jobs } = context;

  app.get(
    '/system/jobs',
    {
      schema: {
        tags,
        summary: `The jobs kept (running ones, and finished ones for ${KEPT_TEXT}), newest first`,
        response: {
          200: Type.Object({ success: Type.Literal(true), jobs: Type.Array(JobShape) }),
        },
      },
    },
    async () => ({ success: true, jobs: jobs.list() }),
  );

  app.get<{ Params: { id: string } }>(
    '/system/jobs/:id',
    {
      schema: {
        tags,
        summary: 'One job: status, progress per electrode, result or error',
        params: IdParams,
        response: { 200: JobAnswer, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { id } = request.params;
      return { success: true, job: found(id, jobs.get(id)) };
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/system/jobs/:id',
    {
      schema: {
        tags,
        summary:
          'Cancel a running job (its motors are stopped where they are); answers once it has stopped, status cancelled. A finished job is answered as it is.',
        params: IdParams,
        response: { 200: JobAnswer, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { id } = request.params;
      return { success: true, job: found(id, await jobs.cancel(id)) };
    },
  );
}

/**
 * How a route answers an electrode operation (guides/electrode-jobs.ts): 202 with a `Location`
 * (/system/jobs/{id}) and the job, at once; `?wait=true` keeps the synchronous form for scripts:
 * the final answer, or the error envelope of the failure.
 */
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import {
  type ElectrodeJobContext,
  type ElectrodeJobSpec,
  startElectrodeJob,
} from '../../guides/electrode-jobs.js';
import { queryBoolean, QueryBoolean } from '../http-helpers.js';
import { jobPath } from '../job-shapes.js';

/**
 * The query of a job-starting route: `?wait=true` answers when the operation has ended, with its
 * result (default: 202 at once).
 */
export const WaitQuery = Type.Object({ wait: QueryBoolean });
export type WaitQueryType = { wait?: string };

/**
 * Starts an electrode operation as a job (409 when one of its electrodes is held) and answers as
 * the route should: 202 with the job, or with `wait` the final answer.
 */
export async function answerElectrodeJob<R extends object>(
  context: ElectrodeJobContext,
  reply: FastifyReply,
  query: WaitQueryType,
  spec: ElectrodeJobSpec<R>,
): Promise<object> {
  const wait = queryBoolean(query.wait, 'wait');
  const job = startElectrodeJob(context, spec);
  if (wait) return { success: true, ...(await job.settled) };
  void reply.code(202).header('Location', jobPath(job.id));
  return { success: true, job: job.record() };
}

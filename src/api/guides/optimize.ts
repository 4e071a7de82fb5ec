/**
 * POST /electrodes/impedance/optimize and POST /electrodes/adjust (docs/system-paths.md §Guide paths):
 * the closed loop of optimizer.ts with a strategy profile of strategies.ts, run as jobs
 * (guides/electrode-jobs.ts). Answers per electrode `{before, after, attempts, reached}` in kΩ (plus
 * `position` and `reason`).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { type Electrode, mixedCaseMap } from '../../core/electrodes.js';
import { errorResponses } from '../../platform/schemas/responses.js';
import { JobAccepted } from '../job-shapes.js';
import { assertNotAcquiring, electrodesFrom, type GuidesContext } from '../../guides/context.js';
import { answerElectrodeJob, WaitQuery, type WaitQueryType } from './job-answers.js';
import { adjustElectrodes, optimizeInOrder } from '../../guides/adjustments.js';
import type { ElectrodeResult } from '../../guides/optimizer.js';
import { STRATEGIES, STRATEGY_NAMES, type StrategyName } from '../../guides/strategies.js';

const tags = ['guides: electrodes'];

const Names = Type.Union([Type.String(), Type.Array(Type.String())], {
  description: '"all" or electrode names, any case.',
});
const Strategy = Type.Enum(STRATEGY_NAMES, {
  description: Object.entries(STRATEGIES)
    .map(
      ([name, p]) =>
        `${name}: step ${p.stepSize}, limit ${p.pressureLimit} steps past contact, settle ${p.settleMs} ms`,
    )
    .join('; '),
});

const Result = Type.Object({
  before: Type.Number({ description: 'kΩ.' }),
  after: Type.Number({ description: 'kΩ.' }),
  attempts: Type.Integer(),
  reached: Type.Boolean(),
  position: Type.Number({ description: 'Steps at the end.' }),
  reason: Type.String(),
});
const ResultsAnswer = Type.Object({
  success: Type.Literal(true),
  strategy: Type.String(),
  targetImpedance: Type.Number(),
  results: Type.Record(Type.String(), Result),
});

type OptimizeBody = {
  channels?: string | string[];
  priorityChannels?: string | string[];
  targetImpedance?: number;
  maxAttempts?: number;
  strategy?: StrategyName;
};

type AdjustBody = {
  electrodes: string | string[];
  action: 'increase_pressure' | 'decrease_pressure' | 'reseat';
  target?: { impedance: number };
  strategy?: StrategyName;
  maxAttempts?: number;
};

function answer(strategy: string, target: number, results: Map<Electrode, ElectrodeResult>) {
  return {
    strategy,
    targetImpedance: target,
    results: mixedCaseMap(Object.fromEntries(results)),
  };
}

export function optimizeRoutes(app: FastifyInstance, context: GuidesContext): void {
  const { device } = context;

  app.post<{ Body: OptimizeBody | undefined; Querystring: WaitQueryType }>(
    '/electrodes/impedance/optimize',
    {
      config: { accepts: ['json', 'yaml'], needs: ['motors', 'impedance'] },
      schema: {
        tags,
        summary:
          'Press electrodes in closed loop until each is under the target impedance or out of attempts; a job (202) unless ?wait=true',
        querystring: WaitQuery,
        body: Type.Object(
          {
            channels: Type.Optional(Names),
            priorityChannels: Type.Optional(Names),
            targetImpedance: Type.Optional(
              Type.Number({
                exclusiveMinimum: 0,
                maximum: 1000,
                description: 'kΩ (default: the good threshold, 10).',
              }),
            ),
            maxAttempts: Type.Optional(
              Type.Integer({
                minimum: 1,
                maximum: 50,
                description: 'Press moves per electrode after contact (default 15).',
              }),
            ),
            strategy: Type.Optional(Strategy),
          },
          { additionalProperties: false },
        ),
        response: { 200: ResultsAnswer, 202: JobAccepted, ...errorResponses(400, 409, 415, 422) },
      },
    },
    async (request, reply) => {
      const body = request.body ?? {};
      const channels = electrodesFrom(body.channels, '/channels');
      const priority =
        body.priorityChannels === undefined ? [] : electrodesFrom(body.priorityChannels, '/priorityChannels');
      const strategy = body.strategy ?? 'gentle';
      const target = body.targetImpedance ?? context.config().impedance.thresholds.good;
      assertNotAcquiring(device, 'optimizing electrodes', 'motors', 'impedance');
      const all = [...new Set([...priority, ...channels])];
      const options = {
        targetKohms: target,
        maxAttempts: body.maxAttempts ?? 15,
        profile: STRATEGIES[strategy],
      };
      return answerElectrodeJob(context, reply, request.query, {
        operation: 'electrodes.optimize',
        holder: 'optimization',
        electrodes: all,
        run: async ({ signal, progress }) => {
          const hooks = { ...options, signal, onRound: progress.onRound };
          return answer(strategy, target, await optimizeInOrder(device, priority, all, hooks));
        },
      });
    },
  );

  app.post<{ Body: AdjustBody; Querystring: WaitQueryType }>(
    '/electrodes/adjust',
    {
      config: { accepts: ['json', 'yaml'], needs: ['motors'] },
      schema: {
        tags,
        summary:
          'Increase or decrease the pressure of a few electrodes, or reseat them, toward a target impedance; a job (202) unless ?wait=true',
        querystring: WaitQuery,
        body: Type.Object(
          {
            electrodes: Names,
            action: Type.Enum(['increase_pressure', 'decrease_pressure', 'reseat']),
            target: Type.Optional(
              Type.Object(
                { impedance: Type.Number({ exclusiveMinimum: 0, maximum: 1000, description: 'kΩ.' }) },
                { additionalProperties: false },
              ),
            ),
            strategy: Type.Optional(Strategy),
            maxAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: ResultsAnswer, 202: JobAccepted, ...errorResponses(400, 409, 415, 422) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const electrodes = electrodesFrom(body.electrodes, '/electrodes');
      const strategy = body.strategy ?? 'gentle';
      const target = body.target?.impedance ?? context.config().impedance.thresholds.good;
      assertNotAcquiring(device, 'adjusting electrodes', 'motors');
      const options = {
        targetKohms: target,
        maxAttempts: body.maxAttempts ?? 15,
        profile: STRATEGIES[strategy],
      };
      return answerElectrodeJob(context, reply, request.query, {
        operation: 'electrodes.adjust',
        holder: body.action,
        electrodes,
        run: async ({ signal, progress }) => {
          const hooks = { ...options, signal, onRound: progress.onRound };
          return answer(strategy, target, await adjustElectrodes(device, electrodes, body.action, hooks));
        },
      });
    },
  );
}

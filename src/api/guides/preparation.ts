/**
 * Electrode preparation of the guide paths (docs/system-paths.md §Guide paths): POST /electrodes/prepare
 * (retract, release, seat; a job, guides/electrode-jobs.ts), GET /electrodes/preparation-guidance (a level and one instruction per
 * electrode) and POST /electrodes/diagnose (motor, impedance, signal figures, verdict, advice).
 */
import type { ElectrodeJobContext } from '../../guides/electrode-jobs.js';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { type Electrode, mixedCaseMap } from '../../core/electrodes.js';
import { impedanceLevel } from '../../guides/headmap/impedance-levels.js';
import { HeadsetdError } from '../../core/errors.js';
import { errorResponses } from '../../platform/schemas/responses.js';
import { listParam } from '../http-helpers.js';
import { instructionFor } from '../../guides/advice.js';
import { diagnoseElectrode } from '../../guides/diagnosis.js';
import {
  assertNotAcquiring,
  electrodeFrom,
  electrodesFrom,
  type GuidesContext,
} from '../../guides/context.js';
import { JobAccepted } from '../job-shapes.js';
import { answerElectrodeJob, WaitQuery, type WaitQueryType } from './job-answers.js';
import { prepareElectrodes } from '../../guides/preparation.js';

const tags = ['guides: electrodes'];
const Names = Type.Union([Type.String(), Type.Array(Type.String())], {
  description: '"all" or electrode names, any case.',
});

type PrepareBody = { electrodes: string | string[]; action: 'retract' | 'release' | 'seat'; amount?: number };

const PrepareAnswer = Type.Object({
  success: Type.Literal(true),
  action: Type.String(),
  electrodes: Type.Record(
    Type.String(),
    Type.Object({
      position: Type.Number(),
      state: Type.Integer(),
      impedance: Type.Optional(Type.Number({ description: 'kΩ (seat).' })),
    }),
  ),
});

/** Parses `currentImpedance`, a JSON map name → kΩ given in the query. */
function parseCurrentImpedance(text: string | undefined): Map<Electrode, number> | undefined {
  if (text === undefined) return undefined;
  const path = '/querystring/currentImpedance';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new HeadsetdError(
      'invalid_request',
      'currentImpedance must be a JSON object of electrode name → kΩ, e.g. {"Fp1":12.5}.',
      { path },
    );
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new HeadsetdError(
      'invalid_request',
      'currentImpedance must be a JSON object of electrode name → kΩ.',
      { path },
    );
  }
  const map = new Map<Electrode, number>();
  for (const [name, value] of Object.entries(parsed)) {
    const electrode = electrodeFrom(name, `${path}/${name}`);
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new HeadsetdError(
        'validation_failed',
        `currentImpedance.${name} must be a number of kΩ, 0 or more.`,
        { path: `${path}/${name}` },
      );
    }
    map.set(electrode, value);
  }
  return map;
}

export function preparationRoutes(
  app: FastifyInstance,
  context: ElectrodeJobContext & Pick<GuidesContext, 'latest' | 'config'>,
): void {
  const { device } = context;

  app.post<{ Body: PrepareBody; Querystring: WaitQueryType }>(
    '/electrodes/prepare',
    {
      config: { accepts: ['json', 'yaml'], needs: ['motors'] },
      schema: {
        tags,
        summary:
          'Retract or release electrodes by amount steps, or seat them (to the scalp, then amount steps further); a job (202) unless ?wait=true',
        querystring: WaitQuery,
        body: Type.Object(
          {
            electrodes: Names,
            action: Type.Enum(['retract', 'release', 'seat']),
            amount: Type.Optional(
              Type.Number({
                minimum: 0,
                maximum: 100,
                description:
                  'Steps (0.1 mm). retract/release: default 100 (to the end); seat: steps pressed past contact, default 6.',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: PrepareAnswer,
          202: JobAccepted,
          ...errorResponses(400, 409, 415, 422),
        },
      },
    },
    async (request, reply) => {
      const { action, amount } = request.body;
      const electrodes = electrodesFrom(request.body.electrodes, '/electrodes');
      if (action === 'seat') assertNotAcquiring(device, 'seating electrodes', 'motors');
      return answerElectrodeJob(context, reply, request.query, {
        operation: 'electrodes.prepare',
        holder: `prepare ${action}`,
        electrodes,
        run: async (hooks) => prepareElectrodes(device, electrodes, action, amount, hooks),
      });
    },
  );

  app.get<{ Querystring: { electrodes?: string[]; currentImpedance?: string } }>(
    '/electrodes/preparation-guidance',
    {
      schema: {
        tags,
        summary:
          'Per electrode a quality level and one concrete instruction (from currentImpedance or the latest measurement)',
        querystring: Type.Object({
          electrodes: Type.Optional(Type.Array(Type.String(), { description: 'Names; all when omitted.' })),
          currentImpedance: Type.Optional(
            Type.String({ description: 'JSON object name → kΩ, e.g. {"Fp1":12.5}.' }),
          ),
        }),
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            guidance: Type.Record(
              Type.String(),
              Type.Object({
                impedance: Type.Union([Type.Number(), Type.Null()], { description: 'kΩ.' }),
                level: Type.Union([Type.String(), Type.Null()]),
                instruction: Type.String(),
              }),
            ),
          }),
          ...errorResponses(400, 422),
        },
      },
    },
    async (request) => {
      const given = parseCurrentImpedance(request.query.currentImpedance);
      const electrodes = electrodesFrom(listParam(request.query.electrodes), '/querystring/electrodes');
      const thresholds = context.config().impedance.thresholds;
      const guidance: Partial<
        Record<Electrode, { impedance: number | null; level: string | null; instruction: string }>
      > = {};
      for (const e of electrodes) {
        const kohms = given?.get(e) ?? context.latest.get(e);
        const level = kohms === undefined ? undefined : impedanceLevel(kohms, thresholds);
        guidance[e] = {
          impedance: kohms ?? null,
          level: level ?? null,
          instruction: instructionFor(e, level),
        };
      }
      return { success: true, guidance: mixedCaseMap(guidance) };
    },
  );

  app.post<{ Body: { electrode: string; diagnosticLevel?: 'basic' | 'full' } }>(
    '/electrodes/diagnose',
    {
      config: { accepts: ['json', 'yaml', 'form'], needs: ['impedance', 'motors'] },
      schema: {
        tags,
        summary:
          'Diagnose one electrode: motor, impedance (kΩ), and with level full about a second of its EEG',
        body: Type.Object(
          {
            electrode: Type.String(),
            diagnosticLevel: Type.Optional(Type.Enum(['basic', 'full'], { description: 'Default basic.' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            electrode: Type.String(),
            diagnosticLevel: Type.String(),
            motor: Type.Object({ position: Type.Number(), state: Type.Integer() }),
            impedance: Type.Union([Type.Number(), Type.Null()], {
              description: 'kΩ; null when EEG acquisition prevents measuring and none is known.',
            }),
            noiseRms: Type.Union([Type.Number(), Type.Null()], { description: 'µV (full, EEG electrodes).' }),
            lineNoise: Type.Union([Type.Number(), Type.Null()], { description: 'µV of 50/60 Hz (full).' }),
            verdict: Type.String(),
            advice: Type.String(),
          }),
          ...errorResponses(400, 409, 415, 422),
        },
      },
    },
    async (request) => {
      const electrode = electrodeFrom(request.body.electrode, '/electrode');
      const level = request.body.diagnosticLevel ?? 'basic';
      return { success: true, ...(await diagnoseElectrode(context, electrode, level)) };
    },
  );
}

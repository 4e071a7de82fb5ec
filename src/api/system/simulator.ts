/**
 * /simulator/stimulus (docs/devices.md §The simulated wearer): what the simulated headset's wearer
 * looks at (a flicker of a given frequency, which puts an SSVEP into the occipital EEG) and whether
 * their eyes are closed (a large posterior alpha). A control of the simulation only: every other
 * device (the replay device, live amplifiers) answers 404 not_found saying so.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { HeadsetdError } from '../../core/errors.js';
import { errorResponses } from '../../platform/schemas/responses.js';
import type { SimulatedWearer } from '../../device/simulated/wearer.js';
import type { SystemContext } from './context.js';

const tags = ['simulator'];

const StimulusBody = Type.Object(
  {
    frequency: Type.Optional(
      Type.Union([Type.Number({ exclusiveMinimum: 0, maximum: 100 }), Type.Null()], {
        description:
          'Flicker frequency the wearer looks at, Hz (an SSVEP at it and its 2nd and 3rd harmonics over the occipital electrodes, from 100 to 200 ms later); null: the wearer looks at none. Absent: unchanged.',
      }),
    ),
    amplitude: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 50,
        description:
          "Peak of the SSVEP's fundamental at O1/O2, µV (the 2nd harmonic has half, the 3rd a quarter). Default 3.",
      }),
    ),
    eyes: Type.Optional(
      Type.Enum(['open', 'closed'], {
        description:
          'closed: the posterior alpha grows to about 40 µV peak at O1/O2 (eyes-closed alpha); open: back to normal. Absent: unchanged.',
      }),
    ),
  },
  { additionalProperties: false },
);

const WearerAnswer = Type.Object({
  success: Type.Literal(true),
  stimulus: Type.Object({
    frequency: Type.Union([Type.Number(), Type.Null()], {
      description: 'Hz, or null when the wearer looks at no flicker.',
    }),
    amplitude: Type.Number({ description: "µV: the SSVEP fundamental's peak at O1/O2." }),
    eyes: Type.Enum(['open', 'closed']),
    latencyMs: Type.Number({
      description: "The wearer's visual latency: how long after a request the EEG follows it, ms.",
    }),
  }),
});

/** The device's wearer, or the 404 that says this device has none. */
function wearerOf(context: Pick<SystemContext, 'device'>): SimulatedWearer {
  const wearer = context.device.wearer;
  if (wearer !== undefined) return wearer;
  const { model, kind } = context.device.info();
  throw new HeadsetdError(
    'not_found',
    `/simulator/stimulus is served by the simulated headset only (--device simulated); this service runs the ${model} (${kind}), whose EEG no request can change.`,
  );
}

export function simulatorRoutes(app: FastifyInstance, context: Pick<SystemContext, 'device'>): void {
  app.get(
    '/simulator/stimulus',
    {
      schema: {
        tags,
        summary: 'What the simulated wearer looks at, and whether their eyes are closed',
        response: { 200: WearerAnswer, ...errorResponses(404) },
      },
    },
    async () => ({ success: true, stimulus: wearerOf(context).state() }),
  );

  app.post<{ Body: { frequency?: number | null; amplitude?: number; eyes?: 'open' | 'closed' } }>(
    '/simulator/stimulus',
    {
      config: { accepts: ['json', 'yaml'] },
      schema: {
        tags,
        summary:
          'Simulated headset only: make the wearer look at a flicker (an SSVEP) or close their eyes (alpha)',
        body: StimulusBody,
        response: { 200: WearerAnswer, ...errorResponses(400, 404, 415) },
      },
    },
    async (request) => {
      const wearer = wearerOf(context);
      const { frequency, amplitude, eyes } = request.body;
      if (frequency !== undefined || amplitude !== undefined) {
        wearer.lookAt({
          frequency: frequency === undefined ? wearer.state().frequency : frequency,
          ...(amplitude === undefined ? {} : { amplitude }),
        });
      }
      if (eyes !== undefined) wearer.setEyes(eyes);
      return { success: true, stimulus: wearer.state() };
    },
  );
}

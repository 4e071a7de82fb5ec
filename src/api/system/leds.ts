/**
 * LEDs under /system (docs/system-paths.md §/system): read one LED (USER by default) and set colour and
 * blink rate by form fields or JSON.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { LED_INDICES } from '../../device/headset.js';
import { errorResponses } from '../../platform/schemas/responses.js';
import { deviceCall, deviceRead } from '../http-helpers.js';
import { formNumber } from '../body.js';
import type { SystemContext } from './context.js';
import { LedReadingAnswer } from './schemas.js';
import { requirePart } from '../../device/capabilities.js';

const tags = ['system: leds'];

const LedIndex = Type.Optional(
  Type.String({ description: `${LED_INDICES.join(' or ')} (any case); USER when omitted.` }),
);

const LedBody = Type.Object(
  {
    color: Type.Optional(Type.String({ description: '#RGB or #RRGGBB; #000 turns the LED off.' })),
    blinksPerSecond: Type.Optional(
      Type.Union([Type.Number(), Type.String()], { description: '0..20; 0 is steady light.' }),
    ),
    index: LedIndex,
  },
  { additionalProperties: false },
);

export function ledRoutes(app: FastifyInstance, { device }: Pick<SystemContext, 'device'>): void {
  app.get<{ Querystring: { index?: string } }>(
    '/system/led/state',
    {
      config: { needs: ['leds'] },
      schema: {
        tags,
        summary: 'Read an LED',
        querystring: Type.Object({ index: LedIndex }),
        response: {
          200: LedReadingAnswer,
          ...errorResponses(400, 422),
        },
      },
    },
    async (request) => ({
      success: true,
      ...deviceRead(() => requirePart(device, 'leds').read(request.query.index), '/querystring'),
    }),
  );

  app.put<{ Body: { color?: string; blinksPerSecond?: number | string; index?: string } }>(
    '/system/led/state',
    {
      config: { accepts: ['form', 'json', 'yaml'], needs: ['leds'] },
      schema: {
        tags,
        summary: 'Set an LED: color, blinksPerSecond, index (form or JSON)',
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: LedBody,
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            state: Type.Object({
              color: Type.String(),
              blinksPerSecond: Type.Number(),
              index: Type.String(),
            }),
          }),
          ...errorResponses(400, 415, 422),
        },
      },
    },
    async (request) => {
      const { color, index } = request.body;
      const blinksPerSecond = formNumber(request.body.blinksPerSecond, 'blinksPerSecond');
      const state = await deviceCall(() =>
        requirePart(device, 'leds').set({
          ...(color === undefined ? {} : { color }),
          ...(blinksPerSecond === undefined ? {} : { blinksPerSecond }),
          ...(index === undefined ? {} : { index }),
        }),
      );
      return {
        success: true,
        state: { color: state.color, blinksPerSecond: state.blinksPerSecond, index: state.index },
      };
    },
  );
}

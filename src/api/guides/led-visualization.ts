/**
 * POST /leds/impedance-visualization (docs/system-paths.md §Guide paths): the route of the STATUS
 * LED's impedance visualisation (guides/led-visualization.ts).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { COLOR_SCHEMES } from '../../guides/headmap/impedance-levels.js';
import type { LedVisualization, VisualizationChange } from '../../guides/led-visualization.js';
import { errorResponses } from '../../platform/schemas/responses.js';

export function ledVisualizationRoutes(app: FastifyInstance, visualization: LedVisualization): void {
  app.post<{ Body: VisualizationChange | undefined }>(
    '/leds/impedance-visualization',
    {
      config: { accepts: ['json', 'yaml'], needs: ['leds'] },
      schema: {
        tags: ['guides: leds'],
        summary: 'Show the worst electrode impedance level on the STATUS LED',
        body: Type.Object(
          {
            enabled: Type.Optional(Type.Boolean()),
            colorScheme: Type.Optional(Type.Enum([...COLOR_SCHEMES])),
            updateInterval: Type.Optional(
              Type.Integer({
                minimum: 100,
                maximum: 60_000,
                description: 'ms, at most one LED change per interval.',
              }),
            ),
            thresholds: Type.Optional(
              Type.Object(
                {
                  excellent: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
                  good: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
                  acceptable: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
                  poor: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
                },
                { additionalProperties: false, description: 'kΩ upper bounds of the levels.' },
              ),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            enabled: Type.Boolean(),
            colorScheme: Type.String(),
            updateInterval: Type.Integer(),
            thresholds: Type.Object({
              excellent: Type.Number(),
              good: Type.Number(),
              acceptable: Type.Number(),
              poor: Type.Number(),
            }),
            level: Type.Union([Type.String(), Type.Null()], { description: 'The worst level shown now.' }),
            color: Type.String({ description: 'The STATUS LED colour now.' }),
          }),
          ...errorResponses(400, 415, 422),
        },
      },
    },
    async (request) => ({ success: true, ...(await visualization.configure(request.body ?? {})) }),
  );
}

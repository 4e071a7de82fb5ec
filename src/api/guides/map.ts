/**
 * GET /electrodes/impedance/map (docs/system-paths.md §Guide paths): the head map of the latest values,
 * as SVG or PNG. With no value yet it measures all 21 first (unless EEG is acquired: then it
 * draws what it has, grey where nothing was measured).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { COLOR_SCHEMES, type ColorScheme } from '../../guides/headmap/impedance-levels.js';
import { renderHeadMapSvg, renderPng } from '../../guides/headmap/impedance-map.js';
import { errorResponses, textOrFileResponse } from '../../platform/schemas/responses.js';
import type { GuidesContext } from '../../guides/context.js';

export function mapRoutes(
  app: FastifyInstance,
  context: Pick<GuidesContext, 'config' | 'device' | 'latest'>,
): void {
  app.get<{ Querystring: { format?: 'svg' | 'png'; colorScheme?: ColorScheme } }>(
    '/electrodes/impedance/map',
    {
      schema: {
        tags: ['guides: impedance'],
        summary: 'Top-view head map of the latest impedance (image/svg+xml or image/png)',
        querystring: Type.Object({
          format: Type.Optional(Type.Enum(['svg', 'png'], { description: 'Default svg.' })),
          colorScheme: Type.Optional(Type.Enum([...COLOR_SCHEMES], { description: 'Default default.' })),
        }),
        produces: ['image/svg+xml', 'image/png'],
        response: {
          200: textOrFileResponse('The head map.', ['image/svg+xml', 'image/png']),
          ...errorResponses(400, 422),
        },
      },
    },
    async (request, reply) => {
      if (context.latest.timestamp() === undefined && !context.device.eeg.state().streaming) {
        // A device without an impedance meter draws the map without values.
        await context.device.impedance?.measure().catch(() => undefined);
      }
      const timestamp = context.latest.timestamp();
      const svg = renderHeadMapSvg({
        values: context.latest.all(),
        scheme: request.query.colorScheme ?? 'default',
        thresholds: context.config().impedance.thresholds,
        ...(timestamp === undefined ? {} : { timestamp }),
      });
      if (request.query.format === 'png') return reply.type('image/png').send(await renderPng(svg));
      return reply.type('image/svg+xml; charset=utf-8').send(svg);
    },
  );
}

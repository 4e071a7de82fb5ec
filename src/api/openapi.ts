/**
 * The OpenAPI 3.1 document, generated from the routes' TypeBox schemas (GET /openapi.json), and a
 * human-readable reference rendered from it by Swagger UI (GET /docs), served from the package's
 * own files: nothing is fetched at run time.
 */
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { docsUiRoutes } from './docs-ui.js';
import { ErrorEnvelope } from '../platform/schemas/responses.js';
import { ERROR_EXAMPLE, withExamples } from './openapi-examples.js';
import { DocumentedNodeSchema, withDocumentedNodes } from './openapi-nodes.js';
import { routeParts } from './part-routes.js';

/**
 * Errors every route can answer whatever its own: 401 and 403 from the security hook, 500 for a
 * fault of the service. Added to each route's documented responses as it is registered.
 */
const COMMON_ERRORS = [401, 403, 500] as const;

export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  app.addSchema({ ...ErrorEnvelope, examples: [ERROR_EXAMPLE] });
  app.addSchema(DocumentedNodeSchema);
  app.addHook('onRoute', (route) => {
    const schema = route.schema;
    if (schema === undefined || (schema as { hide?: boolean }).hide === true) return;
    const response = { ...(schema.response as Record<number, unknown> | undefined) };
    for (const status of COMMON_ERRORS) response[status] ??= { $ref: 'ErrorEnvelope' };
    // A route that needs a part of the device answers 409 not_supported on a device without it,
    // and says which parts (part-routes.ts).
    const parts = routeParts(route);
    if (parts.length > 0) response[409] ??= { $ref: 'ErrorEnvelope' };
    if ((route as { wsHandler?: unknown }).wsHandler !== undefined) {
      response[101] ??= {
        description: 'Switching Protocols: a WebSocket whose messages are JSON text, one per event or frame.',
      };
    }
    route.schema = { ...schema, response, ...(parts.length > 0 ? { 'x-device-parts': [...parts] } : {}) };
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'headsetd',
        version,
        description:
          'The local HTTP interface of a 21-electrode EEG headset: stream-processing graphs (/stream) and device control (/system). ' +
          'Every error is the envelope {success:false, error:{code, message, details}}.',
      },
      servers: [{ url: 'http://127.0.0.1:42069' }],
      tags: [
        { name: 'streams', description: 'Stream definitions, lifecycle and live editing' },
        { name: 'streams (guide aliases)', description: 'The same operations without the /stream prefix' },
        { name: 'service', description: 'The service itself' },
        {
          name: 'simulator',
          description:
            'The simulated headset only: what its simulated wearer looks at (an SSVEP) and whether their eyes are closed (alpha)',
        },
        {
          name: 'instinct-sdk',
          description:
            "The maker's Python SDK (instinct-py) on its default paths: the same streams and device",
        },
      ],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'Needed when listening beyond loopback.' },
        },
      },
    },
    // Documentation only (validation has already been set up from the route's own schema): each
    // node gets its built-in's config schema, and each operation its examples.
    transform: ({ schema, url, route }) => ({
      schema: withExamples(withDocumentedNodes(schema) as typeof schema, route.method, url),
      url,
    }),
    refResolver: {
      buildLocalReference: (json, _base, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  });
  // Swagger UI's own packages are loaded by the first request to /docs, not at start-up.
  docsUiRoutes(app, '/docs');
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

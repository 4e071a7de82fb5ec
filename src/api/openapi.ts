/**
 * The OpenAPI 3.1 document, generated from the routes' TypeBox schemas (GET /openapi.json), and a
 * human-readable reference rendered from it by Swagger UI (GET /docs), served from the package's
 * own files: nothing is fetched at run time.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { ErrorEnvelope } from '../schemas/responses.js';

export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  app.addSchema(ErrorEnvelope);
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
      ],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'Needed when listening beyond loopback.' },
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _base, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true },
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

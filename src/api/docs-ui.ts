/**
 * GET /docs: the OpenAPI document rendered by Swagger UI, built by the first request that asks
 * for it. Loading Swagger UI's packages (its plugin, @fastify/static, send, the page's files) took
 * about 30 ms of a 270 ms start (docs/performance-areas.md §Start-up), for a page few sessions open.
 *
 * The page lives in a small Fastify instance of its own, made once on first use and handed the
 * main app's document; the main app's routes under the prefix forward each request to it with
 * `inject`, so the main app's hooks (the Host, Origin and token rules, error envelope) apply as to
 * any other route.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Fastify from 'fastify';
import { HeadsetdError } from '../core/errors.js';

/** What fastify-plugin marks a plugin with: its name, so that Swagger UI's dependency check passes. */
function namedPlugin(name: string, plugin: (app: FastifyInstance) => Promise<void>): typeof plugin {
  const marked = plugin as typeof plugin & Record<symbol, unknown>;
  marked[Symbol.for('skip-override')] = true;
  marked[Symbol.for('fastify.display-name')] = name;
  marked[Symbol.for('plugin-meta')] = { name };
  return plugin;
}

async function buildUi(app: FastifyInstance, prefix: string): Promise<FastifyInstance> {
  const { default: swaggerUi } = await import('@fastify/swagger-ui');
  const ui = Fastify({ logger: false, routerOptions: { ignoreTrailingSlash: true } });
  await ui.register(
    namedPlugin('@fastify/swagger', async (scope) => {
      scope.decorate('swagger', ((options?: { yaml?: boolean }) =>
        app.swagger(options as { yaml: true })) as FastifyInstance['swagger']);
    }),
  );
  await ui.register(swaggerUi, {
    routePrefix: prefix,
    uiConfig: { docExpansion: 'list', deepLinking: true },
  });
  await ui.ready();
  return ui;
}

export function docsUiRoutes(app: FastifyInstance, prefix: string): void {
  let ui: Promise<FastifyInstance> | undefined;
  const forward = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    ui ??= buildUi(app, prefix);
    const answer = await (await ui).inject({
      method: request.method as 'GET' | 'HEAD',
      url: request.url,
      headers: request.headers,
    });
    // A path Swagger UI does not serve gets the service's own 404 envelope.
    if (answer.statusCode === 404) {
      const path = request.url.split('?')[0] ?? '';
      throw new HeadsetdError(
        'not_found',
        `Nothing is served at ${request.method} ${path}; see /docs for the API.`,
      );
    }
    const {
      'content-length': _l,
      'transfer-encoding': _t,
      connection: _c,
      date: _d,
      ...headers
    } = answer.headers;
    reply.code(answer.statusCode).headers(headers);
    return answer.rawPayload.length === 0 ? reply.send() : reply.send(answer.rawPayload);
  };
  app.addHook('onClose', async () => {
    if (ui !== undefined) await (await ui).close();
  });
  for (const url of [prefix, `${prefix}/*`]) app.get(url, { schema: { hide: true } }, forward);
}

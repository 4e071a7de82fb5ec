/**
 * The Fastify instance: body parsers, validation, security hooks, error envelope, OpenAPI and one
 * plugin per resource. Knows HTTP and nothing below the interfaces it is handed.
 */
import websocket from '@fastify/websocket';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Logger } from 'pino';
import type { StreamManager } from '../streams/manager.js';
import { BODY_LIMIT, registerBodyParsers } from './body.js';
import { answerClientError } from './client-error.js';
import { dashboardRoutes } from './dashboard.js';
import { HeadsetdError } from '../core/errors.js';
import { eegReaders } from '../streams/eeg-readers.js';
import { namingStreamHolders } from './busy-holders.js';
import { inIfMatchTerms } from './if-match.js';
import { installErrorHandling, sendError } from './error-handler.js';
import { registerOpenApi } from './openapi.js';
import { installSecurity, type SecurityOptions } from './security.js';
import { streamsPlugin } from './streams.js';
import type { LateFailureSink } from './stream-signal.js';
import { installValidation } from './validation.js';
import { WriteEpoch } from './polled-answer.js';
import { appendHook } from './route-hooks.js';
import { requestLogger } from './request-logger.js';
import { headersTimeouts } from '../platform/security/http-timeouts.js';
import { errorMessage } from '../core/error-message.js';

/** A commit that reached the store but not the disk: the change is made, but not yet safe. */
function storageFlushError(error: unknown): HeadsetdError {
  return new HeadsetdError(
    'storage_error',
    `The store could not flush its last changes to the disk (${errorMessage(error)}); they hold until the service stops, but may be lost on a power cut. Check the service's data directory (disk health, free space).`,
    { reason: (error as NodeJS.ErrnoException).code ?? 'flush' },
  );
}

export interface AppOptions {
  manager: StreamManager;
  logger: Logger;
  version: string;
  security: SecurityOptions;
  /**
   * How long a stream signal waits for its transition before answering with the transitional
   * state (default SIGNAL_WAIT_MS, docs/api.md §Lifecycle); tests of transitional states shorten it.
   */
  signalWaitMs?: number;
  /** Where a stream transition that fails after its answer is announced (api/stream-signal.ts). */
  onLateFailure?: LateFailureSink;
  /**
   * How long a request's headers may take to arrive before `408 request_timeout` (default
   * HEADERS_TIMEOUT_MS of platform/security/http-timeouts.ts, docs/api.md); tests shorten it.
   */
  headersTimeoutMs?: number;
  /**
   * The store's commits not yet on disk (undefined when none): a request that wrote is answered
   * once they are, so that what the API acknowledged survives a power cut (platform/store/durability.ts).
   */
  commitsPending?: () => Promise<void> | undefined;
  /**
   * Plugins of the other resources (systems, guides, recordings), registered after the streams;
   * handed what the app shares with them (the requests that may change state, for answers that
   * are kept between polls).
   */
  extraPlugins?: ((app: FastifyInstance, shared: AppShared) => Promise<void> | void)[];
}

/** What {@link createApp} hands every plugin of `extraPlugins`. */
export interface AppShared {
  /** Bumped by every request that may change state (polled-answer.ts). */
  readonly writes: WriteEpoch;
}

export async function createApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    http: headersTimeouts(options.headersTimeoutMs),
    loggerInstance: options.logger,
    bodyLimit: BODY_LIMIT,
    // Requests are not logged one by one: a device answers many status polls; errors are logged.
    logController: new LogController({ disableRequestLogging: true }),
    // Each request's logger is made when it first logs (request-logger.ts): a poll logs nothing.
    childLoggerFactory: requestLogger,
    // Query arrays: `?channels=O1&channels=O2` arrive as arrays; comma lists are split per route.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 256 },
    return503OnClosing: true,
    // Oversized headers or URL (431), malformed HTTP (400) and slow headers (408) get the envelope too.
    clientErrorHandler: answerClientError,
    // Errors raised by the router before any route or hook runs (a malformed percent-encoding, a
    // path segment longer than maxParamLength): without this Fastify answers them in its own
    // shape (and 414 for the latter), not the envelope.
    frameworkErrors: (error, _request, reply) => {
      const known =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new HeadsetdError(
              'not_found',
              'A path segment is longer than 256 characters; no stream, node or pipe has such an id.',
            )
          : new HeadsetdError('invalid_request', 'The URL is malformed (bad percent-encoding).');
      void sendError(reply, known);
    },
  }) as unknown as FastifyInstance;

  const pending = options.commitsPending;
  if (pending !== undefined) {
    const untilOnDisk = (
      _request: FastifyRequest,
      _reply: FastifyReply,
      payload: unknown,
      done: (error: Error | null, payload?: unknown) => void,
    ): void => {
      const flushing = pending();
      if (flushing === undefined) {
        done(null, payload);
        return;
      }
      flushing.then(
        () => {
          done(null, payload);
        },
        (error: unknown) => {
          done(storageFlushError(error));
        },
      );
    };
    // On the routes that write: a GET's rare commit (an expired entry removed) is flushed in the
    // background, and status polls keep a hook less.
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      if (methods.every((m) => m === 'GET' || m === 'HEAD')) return;
      route.onSend = appendHook(route.onSend, untilOnDisk);
    });
  }
  // Before any route is registered: the hooks are added to each writing route as it is made.
  const shared: AppShared = { writes: new WriteEpoch() };
  shared.writes.install(app);
  installErrorHandling(app, {
    explain: (error) => inIfMatchTerms(namingStreamHolders(error, () => eegReaders(options.manager.list()))),
  });
  installValidation(app);
  // At the root, so that every plugin's WebSocket routes share the server's upgrade handling; and
  // before the security hook, so that an upgrade it refuses is answered and its socket closed.
  const signals = { signalWaitMs: options.signalWaitMs, onLateFailure: options.onLateFailure };
  await app.register(websocket, { options: { maxPayload: 1024 * 1024 } });
  installSecurity(app, options.security);
  await registerBodyParsers(app);
  await registerOpenApi(app, options.version);

  await app.register(
    async (scope) => {
      streamsPlugin(scope, { manager: options.manager, tag: 'streams', ...signals });
    },
    { prefix: '/stream' },
  );
  await app.register(async (scope) => {
    streamsPlugin(scope, { manager: options.manager, tag: 'streams (guide aliases)', ...signals });
  });

  for (const plugin of options.extraPlugins ?? []) await app.register(async (scope) => plugin(scope, shared));
  // The operator's dashboard at / (docs/dashboard.md): the page and its files, no API path.
  await app.register(async (scope) => {
    dashboardRoutes(scope);
  });
  return app;
}

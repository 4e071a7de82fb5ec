/**
 * Impedance sessions of the guide paths (docs/system-paths.md §Guide paths): start, latest values, stop,
 * and the live WebSocket. Values in kΩ, names in the mixed 10-20 case.
 */
import type { FastifyInstance } from 'fastify';
import { mixedCaseMap } from '../../core/electrodes.js';
import { Type } from 'typebox';
import { errorResponses } from '../../platform/schemas/responses.js';
import type { SocketFanout } from '../../streams/runtime/socket-fanout.js';
import { electrodesFrom, type GuidesContext } from '../../guides/context.js';
import { socketRoute } from '../socket-route.js';
import type { Session } from '../../guides/impedance-sessions.js';
import type { Static } from 'typebox';
import {
  ImpedanceSessionAnswer,
  ImpedanceStartAnswer,
  ImpedanceStopAnswer,
} from '../../platform/schemas/impedance.js';

const tags = ['guides: impedance'];

const StartBody = Type.Object(
  {
    continuous: Type.Optional(
      Type.Boolean({ description: 'Measure every updateInterval until stopped (default false: once).' }),
    ),
    channels: Type.Optional(
      Type.Union([Type.Literal('all'), Type.String(), Type.Array(Type.String())], {
        description: '"all" (default) or electrode names, any case.',
      }),
    ),
    testSignal: Type.Optional(
      Type.Object(
        {
          frequency: Type.Number({ exclusiveMinimum: 0, maximum: 1000, description: 'Hz.' }),
          amplitude: Type.Number({ exclusiveMinimum: 0, maximum: 100, description: 'nA.' }),
        },
        { additionalProperties: false },
      ),
    ),
    updateInterval: Type.Optional(
      Type.Integer({ minimum: 100, maximum: 60_000, description: 'ms between measurements (≥ 100).' }),
    ),
  },
  { additionalProperties: false },
);
type StartBodyType = {
  continuous?: boolean;
  channels?: string | string[];
  testSignal?: { frequency: number; amplitude: number };
  updateInterval?: number;
};

function reading(session: Session): Static<typeof ImpedanceSessionAnswer> {
  return {
    success: true,
    timestamp: session.latest?.timestamp ?? null,
    values: session.latest === undefined ? {} : mixedCaseMap(session.latest.values),
    status: session.status,
    sessionId: session.id,
    mode: session.mode,
    ...(session.error === undefined ? {} : { error: session.error }),
  };
}

export function impedanceSessionRoutes(
  app: FastifyInstance,
  context: Pick<GuidesContext, 'sessions' | 'config'>,
  live: SocketFanout,
): void {
  const { sessions } = context;

  app.post<{ Body: StartBodyType | undefined }>(
    '/electrodes/impedance/start',
    {
      config: { accepts: ['json', 'yaml'], needs: ['impedance'] },
      schema: {
        tags,
        summary: 'Start an impedance check (single or continuous); stops the session running',
        body: StartBody,
        response: {
          200: ImpedanceStartAnswer,
          ...errorResponses(400, 409, 415, 422),
        },
      },
    },
    async (request): Promise<Static<typeof ImpedanceStartAnswer>> => {
      const body = request.body ?? {};
      const channels = electrodesFrom(body.channels, '/channels');
      const session = sessions.start({
        continuous: body.continuous ?? false,
        channels,
        updateInterval: body.updateInterval ?? context.config().impedance.updateInterval,
        ...(body.testSignal === undefined ? {} : { testSignal: body.testSignal }),
      });
      return {
        success: true,
        status: 'running',
        sessionId: session.id,
        mode: session.mode,
        channels: Object.keys(mixedCaseMap(Object.fromEntries(channels.map((c) => [c, 0])))),
        updateInterval: session.updateInterval,
      };
    },
  );

  app.get<{ Querystring: { sessionId?: string } }>(
    '/electrodes/impedance',
    {
      schema: {
        tags,
        summary: 'Latest values (kΩ) of a session (the latest session when sessionId is omitted)',
        querystring: Type.Object({ sessionId: Type.Optional(Type.String()) }),
        response: {
          200: ImpedanceSessionAnswer,
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const session = sessions.get(request.query.sessionId);
      await sessions.firstReadingOf(session);
      return reading(session);
    },
  );

  app.post<{ Body: { sessionId?: string } | undefined }>(
    '/electrodes/impedance/stop',
    {
      config: { accepts: ['json', 'yaml', 'form'] },
      schema: {
        tags,
        summary: 'Stop a session (the latest when sessionId is omitted)',
        body: Type.Object({ sessionId: Type.Optional(Type.String()) }, { additionalProperties: false }),
        response: {
          200: ImpedanceStopAnswer,
          ...errorResponses(400, 404, 415),
        },
      },
    },
    async (request): Promise<Static<typeof ImpedanceStopAnswer>> => {
      const session = await sessions.stop(request.body?.sessionId);
      return { success: true, status: session.status, sessionId: session.id };
    },
  );

  socketRoute(
    app,
    '/electrodes/impedance/live',
    {
      tags,
      summary: 'WebSocket: {timestamp, values (kΩ)} at every reading of a continuous session',
    },
    (socket) => {
      live.add(socket);
    },
  );
}

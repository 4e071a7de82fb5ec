/**
 * WebSocket GET /system/events (docs/system-paths.md §/system): every device event as JSON (impedance in
 * kΩ, quality 0..1, system events), plus the events the API raises (impedance schedules, jobs).
 */
import type { FastifyInstance } from 'fastify';
import { EventMessage } from '../../platform/schemas/events.js';
import { socketRoute } from '../socket-route.js';
import type { SystemContext } from './context.js';

export function eventRoutes(app: FastifyInstance, context: Pick<SystemContext, 'eventSockets'>): void {
  socketRoute(
    app,
    '/system/events',
    {
      tags: ['system: device'],
      summary:
        'WebSocket: device events as JSON: {type:"impedance",timestamp,data:{electrode:kΩ}}, {type:"quality",timestamp,data:{overall,channels}}, {type:"system",timestamp,eventType,level,message}, {type:"job",timestamp,job} (a job started, progressed or ended), {type:"marker",timestamp,data:{text,onset,duration?,file}} (an annotation of the file the replay device plays)',
      response: {
        101: {
          ...EventMessage,
          description:
            'Switching Protocols: a WebSocket whose messages are JSON text, one per event, each of the shape below.',
        },
      },
    },
    (socket) => {
      context.eventSockets.add(socket);
    },
  );
}

/**
 * WebSocket GET /system/events (docs/system-paths.md): every device event as JSON (impedance in
 * kΩ, quality 0..1, system events), plus the events the API raises (impedance schedules).
 */
import type { FastifyInstance } from 'fastify';
import { socketRoute } from './socket-route.js';
import type { SystemContext } from './index.js';
import { SocketFanout } from './socket-fanout.js';

export function eventRoutes(app: FastifyInstance, context: SystemContext): void {
  let unsubscribe: (() => void) | undefined;
  const clients = new SocketFanout(undefined, (active) => {
    if (active)
      unsubscribe = context.hub.on((event) => {
        clients.send(event);
      });
    else {
      unsubscribe?.();
      unsubscribe = undefined;
    }
  });
  context.onClose(() => {
    unsubscribe?.();
    clients.closeAll();
  });

  socketRoute(
    app,
    '/system/events',
    {
      tags: ['system: device'],
      summary:
        'WebSocket: device events as JSON: {type:"impedance",timestamp,data:{electrode:kΩ}}, {type:"quality",timestamp,data:{overall,channels}}, {type:"system",timestamp,eventType,level,message}',
    },
    (socket) => {
      clients.add(socket);
    },
  );
}

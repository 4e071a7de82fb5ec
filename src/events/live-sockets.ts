/**
 * A WebSocket fan-out that listens to its source only while a client is connected: the source is
 * subscribed when the first client arrives and unsubscribed when the last leaves, so an event
 * stream nobody reads costs nothing. The service makes one per live WebSocket path
 * (GET /system/events, /system/sensors/eeg/stream) and hands it to the route, which only adds
 * the sockets it upgrades.
 */
import { type ClientSocket, SocketFanout } from '../runtime/socket-fanout.js';

/** Subscribes `send` to a source; answers the unsubscribe. */
export type Subscribe = (send: (message: unknown) => void) => () => void;

export interface LiveSockets {
  /** Adds a client until its socket closes. */
  add(socket: ClientSocket): void;
  /** Unsubscribes from the source and closes every client (1001). */
  close(): void;
}

export function liveSockets(subscribe: Subscribe): LiveSockets {
  let unsubscribe: (() => void) | undefined;
  const clients: SocketFanout = new SocketFanout({
    onActive: (active) => {
      if (active)
        unsubscribe = subscribe((message) => {
          clients.send(message);
        });
      else {
        unsubscribe?.();
        unsubscribe = undefined;
      }
    },
  });
  return {
    add(socket) {
      clients.add(socket);
    },
    close() {
      unsubscribe?.();
      unsubscribe = undefined;
      clients.closeAll();
    },
  };
}

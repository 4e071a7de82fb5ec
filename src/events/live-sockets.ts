/**
 * A WebSocket fan-out that listens to its source only while a client is connected: the source is
 * subscribed when the first client arrives and unsubscribed when the last leaves, so an event
 * stream nobody reads costs nothing. The service makes one per live WebSocket path
 * (GET /system/events, /system/sensors/eeg/stream) and hands it to the route, which only adds
 * the sockets it upgrades. Each message is encoded once, by the path's encoder (the device's frames:
 * the frame's one JSON encoder, core/frame.ts `frameJsonText`; events: `JSON.stringify`), and the
 * same text goes to every client.
 */
import { type Frame, frameJsonText } from '../core/frame.js';
import { type ClientSocket, SocketFanout } from '../streams/runtime/socket-fanout.js';

/** Subscribes `send` to a source; answers the unsubscribe. */
export type Subscribe<M> = (send: (message: M) => void) => () => void;

export interface LiveSockets {
  /** Adds a client until its socket closes. */
  add(socket: ClientSocket): void;
  /** Messages a client lost before the last one it was sent: the gaps it sees (SocketFanout.lostBy). */
  lostBy(socket: ClientSocket): number;
  /** Unsubscribes from the source and closes every client (1001). */
  close(): void;
}

const asJson = (message: unknown): string => JSON.stringify(message);

export function liveSockets<M>(
  subscribe: Subscribe<M>,
  encode: (message: M) => string = asJson,
): LiveSockets {
  let unsubscribe: (() => void) | undefined;
  const clients: SocketFanout = new SocketFanout({
    onActive: (active) => {
      if (active)
        unsubscribe = subscribe((message) => {
          clients.sendText(() => encode(message));
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
    lostBy(socket) {
      return clients.lostBy(socket);
    },
    close() {
      unsubscribe?.();
      unsubscribe = undefined;
      clients.closeAll();
    },
  };
}

/**
 * The live socket of the device's frames (GET /system/sensors/eeg/stream): each frame in the
 * frame's one JSON text form (docs/api.md §Frames), the text a websocket node and a quick stream
 * send for the same frame.
 */
export function liveFrameSockets(subscribe: Subscribe<Frame>): LiveSockets {
  return liveSockets(subscribe, frameJsonText);
}

/**
 * The answer to the maker's SDK discovery (docs/instinct-sdk.md §Discovery): `InstinctDevice.discover()`
 * broadcasts the text `INSTINCT_DISCOVER:<reply port>` to UDP port 48010 and takes the sender of
 * any reply as a device. The responder replies to that port of the sender, with a short text naming
 * the device (the SDK reads only the sender's address). It runs only when the service is reachable
 * beyond loopback, or when the `discovery` setting says `on` (docs/security.md); never by default.
 */
import { createSocket, type Socket } from 'node:dgram';
import { isLoopbackHost } from './config.js';

/** The UDP port the SDK broadcasts to. */
export const DISCOVERY_PORT = 48010;

export type DiscoveryMode = 'auto' | 'on' | 'off';

const QUERY = /^INSTINCT_DISCOVER:(\d{1,5})$/;

/** Whether discovery is answered: `on`, or `auto` while the API listens beyond loopback. */
export function discoveryEnabled(mode: DiscoveryMode, host: string): boolean {
  return mode === 'on' || (mode === 'auto' && !isLoopbackHost(host));
}

/** The reply port of a discovery query, or undefined for anything else (ignored). */
export function replyPort(message: Buffer): number | undefined {
  if (message.length > 64) return undefined;
  const match = QUERY.exec(message.toString('latin1').trim());
  const port = match === null ? Number.NaN : Number(match[1]);
  return Number.isInteger(port) && port > 0 && port <= 65535 ? port : undefined;
}

export interface DiscoveryResponder {
  close(): Promise<void>;
}

/**
 * Listens on `port` (all IPv4 addresses: broadcasts reach only a socket bound to the wildcard) and
 * answers each query with `reply()`. Resolves once listening; rejects if the port cannot be bound.
 */
export async function startDiscoveryResponder(options: {
  readonly port?: number;
  readonly reply: () => string;
  readonly onError?: (error: Error) => void;
}): Promise<DiscoveryResponder> {
  const socket: Socket = createSocket({ type: 'udp4', reuseAddr: false });
  socket.on('message', (message, from) => {
    const port = replyPort(message);
    if (port === undefined) return;
    socket.send(options.reply(), port, from.address, (error) => {
      if (error) options.onError?.(error);
    });
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(options.port ?? DISCOVERY_PORT, '0.0.0.0', () => {
      socket.off('error', reject);
      resolve();
    });
  });
  socket.on('error', (error) => options.onError?.(error));
  return {
    close: () =>
      new Promise<void>((resolve) => {
        socket.close(() => {
          resolve();
        });
      }),
  };
}

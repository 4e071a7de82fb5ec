/**
 * The answer to the maker's SDK discovery (docs/instinct-sdk.md §Discovery): `InstinctDevice.discover()`
 * broadcasts the text `INSTINCT_DISCOVER:<reply port>` to UDP port 48010 and takes the sender of
 * any reply as a device. The responder replies to that port of the sender, with a short text naming
 * the device (the SDK reads only the sender's address). It runs only when the service is reachable
 * beyond loopback, or when the `discovery` setting says `on` (docs/security.md); never by default.
 *
 * UDP answers go to whatever sender a datagram claims, so the responder must not be a reflector
 * (docs/security.md §The maker's SDK on a network): it answers the exact query only, at most
 * {@link DISCOVERY_LIMITS} often, and never with more than {@link MAX_REPLY_FACTOR} times the
 * query's bytes.
 */
import { createSocket, type Socket } from 'node:dgram';
import { isLoopbackHost } from './config.js';
import { RateLimiter, type RateLimits } from '../platform/security/rate-limit.js';

/** The UDP port the SDK broadcasts to. */
export const DISCOVERY_PORT = 48010;

export type DiscoveryMode = 'auto' | 'on' | 'off';

/** The SDK's query, exactly as it sends it: no space, no line end, no leading zero. */
const QUERY = /^INSTINCT_DISCOVER:([1-9]\d{0,4})$/;

/** A reply is at most this many times the query's size (a reply port of five digits leaves 46 bytes). */
export const MAX_REPLY_FACTOR = 2;

/**
 * How often queries are answered: the SDK sends one per `discover()`, so a person retrying is far
 * below them; a forged sender gets at most this from the device.
 */
export const DISCOVERY_LIMITS: RateLimits = {
  peer: { burst: 4, perSecond: 1 },
  overall: { burst: 20, perSecond: 10 },
  maxPeers: 1024,
};

/** Whether discovery is answered: `on`, or `auto` while the API listens beyond loopback. */
export function discoveryEnabled(mode: DiscoveryMode, host: string): boolean {
  return mode === 'on' || (mode === 'auto' && !isLoopbackHost(host));
}

/** The reply port of a discovery query, or undefined for anything else (ignored). */
export function replyPort(message: Buffer): number | undefined {
  if (message.length > 64) return undefined;
  const match = QUERY.exec(message.toString('latin1'));
  const port = match === null ? Number.NaN : Number(match[1]);
  return Number.isInteger(port) && port > 0 && port <= 65535 ? port : undefined;
}

/**
 * `INSTINCT_DEVICE:<hostname>:<port>`, or `INSTINCT_DEVICE::<port>` (the name left out) when that
 * would exceed {@link MAX_REPLY_FACTOR} times the query's `queryBytes`; `INSTINCT_DEVICE` alone
 * when even that would (the SDK reads only the reply's sender).
 */
export function replyText(hostname: string, apiPort: number, queryBytes: number): string {
  const budget = queryBytes * MAX_REPLY_FACTOR;
  for (const text of [`INSTINCT_DEVICE:${hostname}:${apiPort}`, `INSTINCT_DEVICE::${apiPort}`]) {
    if (Buffer.byteLength(text) <= budget) return text;
  }
  return 'INSTINCT_DEVICE';
}

export interface DiscoveryResponder {
  /** The UDP port listened on (DISCOVERY_PORT unless another was asked for). */
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Listens on `port` (all IPv4 addresses: broadcasts reach only a socket bound to the wildcard) and
 * answers each query with {@link replyText} of the device's name and API port, within
 * {@link DISCOVERY_LIMITS}. Resolves once listening; rejects if the port cannot be bound.
 */
export async function startDiscoveryResponder(options: {
  readonly port?: number;
  /** The device's name, read at each query (a client may rename it). */
  readonly hostname: () => string;
  /** The API's port, named in the reply. */
  readonly apiPort: number;
  /** A monotonic clock in ms for the rate limits (tests hand a fixed one). */
  readonly now?: () => number;
  readonly onError?: (error: Error) => void;
}): Promise<DiscoveryResponder> {
  const socket: Socket = createSocket({ type: 'udp4', reuseAddr: false });
  const limiter = new RateLimiter(DISCOVERY_LIMITS, options.now);
  socket.on('message', (message, from) => {
    const port = replyPort(message);
    if (port === undefined || !limiter.take(from.address)) return;
    const reply = replyText(options.hostname(), options.apiPort, message.length);
    socket.send(reply, port, from.address, (error) => {
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
    port: socket.address().port,
    close: () =>
      new Promise<void>((resolve) => {
        socket.close(() => {
          resolve();
        });
      }),
  };
}

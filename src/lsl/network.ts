/**
 * Where LSL sockets listen and whom they answer. LSL has no authentication: whoever reaches an
 * outlet reads its stream and its metadata. By default everything stays on loopback; named network
 * interfaces open the outlet on them (their IPv4 addresses, and discovery by multicast and
 * broadcast there), and datagrams from any other network are ignored.
 */
import type { Server } from 'node:net';
import dgram from 'node:dgram';
import { networkInterfaces } from 'node:os';

/** liblsl's defaults (its api_config): the discovery port and the range of the outlets' ports. */
export const DEFAULT_MULTICAST_PORT = 16571;
export const DEFAULT_BASE_PORT = 16572;
export const DEFAULT_PORT_RANGE = 32;
/** The IPv4 multicast groups of liblsl's default scopes (link: 224.0.0.1, 224.0.0.183; site: 239.255.172.215). */
export const MULTICAST_GROUPS = ['224.0.0.1', '224.0.0.183', '239.255.172.215'] as const;

export interface LslNetwork {
  /** Network interfaces (names, as `ip link` shows them) the outlets open on besides loopback. */
  interfaces: readonly string[];
  /** `session_id` of every stream; inlets of liblsl look for 'default' unless configured otherwise. */
  sessionId: string;
  /** Hosts (names or addresses) an inlet sends its queries to directly, on every port of the range. */
  knownPeers: readonly string[];
  multicastPort: number;
  basePort: number;
  portRange: number;
}

export const LOOPBACK_NETWORK: LslNetwork = {
  interfaces: [],
  sessionId: 'default',
  knownPeers: [],
  multicastPort: DEFAULT_MULTICAST_PORT,
  basePort: DEFAULT_BASE_PORT,
  portRange: DEFAULT_PORT_RANGE,
};

export interface InterfaceAddress {
  name: string;
  address: string;
  netmask: string;
}

/** IPv4 addresses of the named interfaces; an unknown name or one without IPv4 is an error for a person. */
export function interfaceAddresses(names: readonly string[]): InterfaceAddress[] {
  const all = networkInterfaces();
  return names.flatMap((name) => {
    const entries = (all[name] ?? []).filter((entry) => entry.family === 'IPv4');
    if (entries.length === 0) {
      const known = Object.keys(all).join(', ');
      throw new Error(
        `network interface '${name}' has no IPv4 address on this machine (interfaces: ${known})`,
      );
    }
    return entries.map((entry) => ({ name, address: entry.address, netmask: entry.netmask }));
  });
}

function ipv4ToInt(address: string): number | undefined {
  const parts = address.replace(/^::ffff:/, '').split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    const n = Number(part);
    if (!Number.isInteger(n) || n < 0 || n > 255) return undefined;
    value = value * 256 + n;
  }
  return value;
}

/** True when `address` is loopback or on the network of one of the opened interfaces. */
export function allowedPeer(address: string, opened: readonly InterfaceAddress[]): boolean {
  const peer = ipv4ToInt(address);
  if (peer === undefined) return address === '::1';
  if (peer >>> 24 === 127) return true;
  return opened.some((entry) => {
    const own = ipv4ToInt(entry.address);
    const mask = ipv4ToInt(entry.netmask);
    if (own === undefined || mask === undefined) return false;
    // Unsigned 32-bit arithmetic: `&` gives signed results, `>>> 0` brings them back.
    return (own & mask) >>> 0 === (peer & mask) >>> 0;
  });
}

/** Listens on the first free TCP port of the range (as liblsl does), else on any free port. */
export async function listenInRange(
  server: Server,
  host: string,
  base: number,
  range: number,
): Promise<number> {
  const attempt = (port: number) =>
    new Promise<number | undefined>((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException) => {
        server.off('listening', onListening);
        if (error.code === 'EADDRINUSE' || error.code === 'EACCES') resolve(undefined);
        else reject(error);
      };
      const onListening = () => {
        server.off('error', onError);
        const address = server.address();
        resolve(address !== null && typeof address === 'object' ? address.port : port);
      };
      server.once('error', onError);
      server.once('listening', onListening);
      server.listen({ port, host, exclusive: true });
    });
  for (let port = base; port < base + range; port++) {
    const bound = await attempt(port);
    if (bound !== undefined) return bound;
  }
  const bound = await attempt(0);
  if (bound === undefined) throw new Error(`no free TCP port on ${host}`);
  return bound;
}

/** Binds a UDP socket to the first free port of the range, else any free port. */
export async function bindUdpInRange(host: string, base: number, range: number): Promise<dgram.Socket> {
  const attempt = (port: number) =>
    new Promise<dgram.Socket | undefined>((resolve, reject) => {
      const socket = dgram.createSocket({ type: 'udp4' });
      socket.once('error', (error: NodeJS.ErrnoException) => {
        socket.close();
        if (error.code === 'EADDRINUSE' || error.code === 'EACCES') resolve(undefined);
        else reject(error);
      });
      socket.bind({ port, address: host, exclusive: true }, () => {
        socket.removeAllListeners('error');
        resolve(socket);
      });
    });
  for (let port = base; port < base + range; port++) {
    const socket = await attempt(port);
    if (socket !== undefined) return socket;
  }
  const socket = await attempt(0);
  if (socket === undefined) throw new Error(`no free UDP port on ${host}`);
  return socket;
}

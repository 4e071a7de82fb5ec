/**
 * Finding streams the way liblsl's resolver does: `LSL:shortinfo` queries by UDP to the discovery
 * port of loopback (and, on opened interfaces, their broadcast address and LSL's multicast groups),
 * and to every port of the range of loopback and of each known peer, as liblsl does for known
 * peers: each outlet answers there on its own port, where a query to the shared discovery port
 * reaches one outlet of the machine only; an outlet whose stream matches answers with its short info
 * from the address an inlet then connects to. A wave goes out every half second until an answer.
 */
import dgram from 'node:dgram';
import { lslNow } from './clock.js';
import { type ChannelDescription, parseInfoXml, type StreamInfo } from './info.js';
import { interfaceAddresses, type LslNetwork, MULTICAST_GROUPS } from './network.js';

export type ResolvedStream = StreamInfo & { channels: ChannelDescription[] };

const WAVE_INTERVAL_MS = 500;

/** A literal of XPath 1.0: no escape exists, so a value with both quote kinds is refused. */
export function xpathLiteral(value: string): string {
  if (!value.includes("'")) return `'${value}'`;
  if (!value.includes('"')) return `"${value}"`;
  throw new Error(`the value ${value} holds both ' and ", which an LSL query cannot express`);
}

export interface StreamQuery {
  name?: string;
  type?: string;
  sourceId?: string;
  /** An XPath predicate over the stream info, as liblsl's resolve_bypred takes it. */
  predicate?: string;
}

/** The query liblsl would send: the session first, then each property asked for. */
export function buildQuery(query: StreamQuery, sessionId: string): string {
  const parts = [`session_id=${xpathLiteral(sessionId)}`];
  if (query.name !== undefined) parts.push(`name=${xpathLiteral(query.name)}`);
  if (query.type !== undefined) parts.push(`type=${xpathLiteral(query.type)}`);
  if (query.sourceId !== undefined) parts.push(`source_id=${xpathLiteral(query.sourceId)}`);
  if (query.predicate !== undefined) parts.push(`(${query.predicate})`);
  return parts.join(' and ');
}

/** Where the query waves go. */
function targets(network: LslNetwork): { address: string; port: number }[] {
  const list = [{ address: '127.0.0.1', port: network.multicastPort }];
  // Every outlet of this machine also answers on its own service port, in the range: the shared
  // discovery port gives a unicast query to one outlet only (discovery.ts).
  for (let port = network.basePort; port < network.basePort + network.portRange; port++)
    list.push({ address: '127.0.0.1', port });
  for (const entry of interfaceAddresses(network.interfaces)) {
    const own = entry.address.split('.').map(Number);
    const mask = entry.netmask.split('.').map(Number);
    const broadcast = own.map((byte, i) => (byte | (~(mask[i] ?? 0) & 255)) & 255).join('.');
    list.push({ address: broadcast, port: network.multicastPort });
  }
  if (network.interfaces.length > 0) {
    for (const group of MULTICAST_GROUPS) list.push({ address: group, port: network.multicastPort });
  }
  for (const peer of network.knownPeers) {
    list.push({ address: peer, port: network.multicastPort });
    for (let port = network.basePort; port < network.basePort + network.portRange; port++)
      list.push({ address: peer, port });
  }
  return list;
}

/**
 * Every stream answering `query` (once each, by uid, in the order they answered): waits for the
 * first answer up to `timeoutMs`, then `settleMs` more for the others (liblsl's resolvers wait the
 * same way for more than one). Empty when none answered, or when `signal` aborted.
 */
export async function resolveStreams(
  query: string,
  network: LslNetwork,
  options: { timeoutMs: number; settleMs: number; signal?: AbortSignal | undefined },
): Promise<ResolvedStream[]> {
  const { timeoutMs, settleMs, signal } = options;
  const wide = network.interfaces.length > 0;
  const destinations = targets(network);
  const socket = dgram.createSocket({ type: 'udp4' });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, wide ? '0.0.0.0' : '127.0.0.1', () => {
      socket.off('error', reject);
      resolve();
    });
  });
  socket.on('error', () => undefined);
  if (wide) socket.setBroadcast(true);
  const queryId = String(Math.floor(lslNow() * 1e6) % 1e15);
  const message = Buffer.from(`LSL:shortinfo\r\n${query}\r\n${socket.address().port} ${queryId}\r\n`);
  const found = new Map<string, ResolvedStream>();
  try {
    return await new Promise<ResolvedStream[]>((resolve) => {
      let settle: NodeJS.Timeout | undefined;
      const finish = () => {
        clearInterval(waves);
        clearTimeout(deadline);
        clearTimeout(settle);
        signal?.removeEventListener('abort', onAbort);
        resolve([...found.values()]);
      };
      const onAbort = () => {
        found.clear();
        finish();
      };
      signal?.addEventListener('abort', onAbort);
      socket.on('message', (reply, remote) => {
        const text = reply.toString('utf8');
        const newline = text.indexOf('\n');
        if (newline < 0 || text.slice(0, newline).trim() !== queryId) return;
        const info = parseInfoXml(text.slice(newline + 1));
        if (info === undefined || found.has(info.uid)) return;
        found.set(info.uid, { ...info, v4address: remote.address });
        if (found.size > 1) return;
        if (settleMs <= 0) finish();
        else settle = setTimeout(finish, settleMs);
      });
      const wave = () => {
        for (const { address, port } of destinations) socket.send(message, port, address, () => undefined);
      };
      const waves = setInterval(wave, WAVE_INTERVAL_MS);
      // Once a stream answered, the settle time decides the end.
      const deadline = setTimeout(() => {
        if (found.size === 0) finish();
      }, timeoutMs);
      wave();
    });
  } finally {
    socket.close();
  }
}

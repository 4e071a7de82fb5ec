/**
 * The outlet's side of LSL discovery on the discovery port (16571 by default), which every LSL
 * outlet of the machine shares: liblsl binds it on every address with SO_REUSEADDR, and so does
 * headsetd.
 *
 * The kernel gives a datagram sent to a shared port by broadcast or multicast to every socket
 * bound there, but a unicast datagram to only one of them. liblsl's inlets with the `machine`
 * scope send their queries by unicast to 127.0.0.1, so on a machine with several outlets only one
 * of them sees each query (with liblsl alone: the outlet started last). headsetd binds a responder
 * to 127.0.0.1 itself, which the kernel prefers to the outlets bound to every address, and passes
 * each query that comes from this machine on to every port of the outlets' range on 127.0.0.1:
 * there every outlet, liblsl's and headsetd's, has its own service socket, which answers queries
 * as the discovery port does, straight to the port the inlet named in its query. Queries from
 * other machines arrive by broadcast or multicast on the responder bound to every address, which
 * every outlet sees; they are never passed on (an answer goes to the address a query came from).
 */
import dgram from 'node:dgram';
import type { InterfaceAddress, LslNetwork } from './network.js';
import { MULTICAST_GROUPS } from './network.js';

async function bindShared(port: number, address: string): Promise<dgram.Socket> {
  const socket = dgram.createSocket({ type: 'udp4', reuseAddr: true });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind({ port, address }, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  socket.on('error', () => undefined);
  return socket;
}

/**
 * The responders of an outlet on the shared discovery port: one on 127.0.0.1 always and, when
 * interfaces are opened, one on every address that takes their broadcast and multicast queries.
 */
export async function openResponders(
  network: LslNetwork,
  opened: readonly InterfaceAddress[],
): Promise<dgram.Socket[]> {
  const sockets = [await bindShared(network.multicastPort, '127.0.0.1')];
  if (opened.length > 0) {
    const wide = await bindShared(network.multicastPort, '0.0.0.0');
    wide.setBroadcast(true);
    for (const entry of opened) {
      for (const group of MULTICAST_GROUPS) {
        try {
          wide.addMembership(group, entry.address);
        } catch {
          // An interface without multicast: discovery there goes by broadcast and unicast only.
        }
      }
    }
    sockets.push(wide);
  }
  return sockets;
}

/** True for a query sent from this machine to the loopback address. */
export function fromThisMachine(remote: dgram.RemoteInfo): boolean {
  return remote.address.startsWith('127.');
}

/**
 * Passes a query that came from this machine on to the service sockets of every outlet of the
 * machine (every port of the range on 127.0.0.1, but `ownPort`, whose answer the responder gives
 * itself). They answer the inlet directly: the return port is in the query, the address is
 * 127.0.0.1 for both.
 */
export function relayQuery(socket: dgram.Socket, query: Buffer, network: LslNetwork, ownPort: number): void {
  for (let port = network.basePort; port < network.basePort + network.portRange; port++) {
    if (port === ownPort || port === network.multicastPort) continue;
    socket.send(query, port, '127.0.0.1', () => undefined);
  }
}

/**
 * The addresses a socket listens on, as `Host` names of this device (docs/security.md §Sockets,
 * rule 1): a client that reaches the service by the address it was told to bind (`--host
 * 10.0.0.5`, a websocket node's `host`) names that address, and an IP address cannot be rebound by
 * a foreign site the way a DNS name can. A wildcard (`0.0.0.0`, `::`) listens on every address of
 * the machine, so each of them is accepted, as the interfaces hold them at the time of the request.
 */
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

const WILDCARDS = new Set(['', '0.0.0.0', '::', '[::]']);

/** An IP address in the form a browser writes it in `Host` (IPv6 bracketed), or undefined for a name. */
export function canonicalAddress(name: string): string | undefined {
  const bare = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
  const family = isIP(bare);
  if (family === 0) return undefined;
  try {
    return new URL(family === 6 ? `http://[${bare}]/` : `http://${bare}/`).hostname;
  } catch {
    return undefined;
  }
}

/** Every address of the machine's network interfaces, canonical (zone-scoped ones left out). */
function machineAddresses(): string[] {
  const out: string[] = [];
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) {
      const address = canonicalAddress(entry.address);
      if (address !== undefined) out.push(address);
    }
  }
  return out;
}

/**
 * True when `name` (a `Host` header's name, lower case, IPv6 bracketed) is an address the socket
 * listens on: one of `listening` itself, or, when one of them is a wildcard, an address of the
 * machine's interfaces.
 */
export function isListenAddress(name: string, listening: readonly string[] | undefined): boolean {
  if (listening === undefined || listening.length === 0) return false;
  const address = canonicalAddress(name);
  if (address === undefined) return false;
  if (listening.some((bound) => canonicalAddress(bound) === address)) return true;
  return listening.some((bound) => WILDCARDS.has(bound)) && machineAddresses().includes(address);
}

/**
 * The one allow-list of hosts the service itself sends data to (docs/security.md §Outbound): a
 * quick stream's forward to another headsetd (`POST /stream/{id}/pipe`) and an `osc` node's
 * datagrams. Loopback always; any other host only when the operator names it with
 * `--pipe-allow-host` (`pipeAllowedHosts` in the settings file). No request can add one, so a
 * client of the API cannot make the service send the EEG, or anything, to a host of its choosing.
 */

/** The hosts allowed without being named: loopback only. */
export const LOOPBACK_DESTINATIONS: readonly string[] = ['127.0.0.1', '::1', 'localhost'];

/** A host as the allow-list compares it: trimmed, lower case, an IPv6 address without brackets. */
export function normalHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
}

/** The allow-list in force: loopback and the hosts the operator named. */
export function outboundHosts(named: readonly string[]): readonly string[] {
  return [...new Set([...LOOPBACK_DESTINATIONS, ...named].map(normalHost))];
}

/**
 * Why `host` may not be sent to under `allowed` (the list {@link outboundHosts} gives), as a
 * sentence ending in what to do; undefined when it may. `what` names the sender ("Piping").
 */
export function outboundRefusal(host: string, allowed: readonly string[], what: string): string | undefined {
  const normal = normalHost(host);
  if (allowed.map(normalHost).includes(normal)) return undefined;
  return `${what} to '${host}' is not allowed; this service sends only to ${allowed.join(', ')} (loopback, and the hosts its operator names with --pipe-allow-host)`;
}

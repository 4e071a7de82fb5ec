/**
 * The API port's network safety: every request, WebSocket upgrades included, passes the rules of
 * platform/security/access.ts (Host, Origin, Sec-Fetch-Site, and the token when the service listens beyond
 * loopback), the same rules every websocket node's port applies. The dashboard's own files are
 * served without the token (the page asks for it), under the other rules.
 */
import type { FastifyInstance } from 'fastify';
import type { AccessPolicy, LslSettings } from '../core/access-policy.js';
import { accessRefusal } from '../platform/security/access.js';
import type { TrustedNetworks } from '../platform/security/trusted-networks.js';

export interface SecurityOptions {
  /** Required when set: `Authorization: Bearer <token>` or `?token=` on WebSocket upgrades. */
  token: string | undefined;
  /** Where the token lives; read at each request, so a rotated token applies at once. */
  tokenFile?: string;
  /** Origins allowed besides the service's own (`http://host:port`). */
  allowedOrigins: readonly string[];
  /** Host names allowed besides loopback names, the listening address and the machine's name. */
  allowedHosts: readonly string[];
  /**
   * The machine's own name (its administrator's; never the one `PATCH /system/hostname` sets,
   * which any client may change): accepted in `Host`, with its `.local` form. Empty: none.
   */
  hostname: () => string;
  /** The address the service listens on (`--host`), accepted in `Host`; a wildcard: every one of the machine's. */
  listenAddresses?: readonly string[];
  /** The port actually served, once listening. */
  port: () => number;
  /** Where LSL outlets and inlets open (loopback only when absent). */
  lsl?: LslSettings;
  /** Client networks whose requests need no token (`--trust-network`); none when absent. */
  trusted?: TrustedNetworks;
  /** Hosts nodes may send to (platform/security/outbound-hosts.ts); loopback only when absent. */
  outboundHosts?: readonly string[];
}

/** The rules as plain data, for the API's hook and every websocket node's worker. */
export function accessPolicy(options: SecurityOptions): AccessPolicy {
  return {
    token: options.token,
    ...(options.tokenFile === undefined ? {} : { tokenFile: options.tokenFile }),
    allowedOrigins: options.allowedOrigins,
    // Before the API listens on port 0 its port is not known yet: no origin is the service's then.
    ...(options.port() > 0 ? { servicePort: options.port() } : {}),
    allowedHosts: options.allowedHosts,
    hostname: options.hostname(),
    ...(options.listenAddresses === undefined ? {} : { listenAddresses: options.listenAddresses }),
    ...(options.lsl === undefined ? {} : { lsl: options.lsl }),
    ...(options.outboundHosts === undefined ? {} : { outboundHosts: options.outboundHosts }),
  };
}

/** The same rules without the token: for the dashboard's own files and for trusted networks. */
function withoutToken(policy: AccessPolicy): AccessPolicy {
  const { tokenFile: _file, ...rest } = policy;
  return { ...rest, token: undefined };
}

/**
 * The rules now, made again only when what they are made of moves (the port, known once the
 * service listens; the machine's name): every request asks, and making them anew each time was
 * a share of a status poll's cost (docs/performance.md §GET /system/status: the tick records' shape).
 */
function currentPolicy(options: SecurityOptions): () => AccessPolicy {
  let made: { port: number; hostname: string; policy: AccessPolicy } | undefined;
  return () => {
    const port = options.port();
    const hostname = options.hostname();
    if (made === undefined || made.port !== port || made.hostname !== hostname)
      made = { port, hostname, policy: accessPolicy(options) };
    return made.policy;
  };
}

export function installSecurity(app: FastifyInstance, options: SecurityOptions): void {
  const policyNow = currentPolicy(options);
  // A callback hook, not an async one: every request passes here, and a promise per request showed
  // in the profile of GET /system/status under load (docs/performance-areas.md §The API's hot path).
  app.addHook('onRequest', (request, _reply, done) => {
    const policy = policyNow();
    // Only where a token is asked for (beyond loopback) is there one to spare: the route is looked
    // at then only (Fastify builds `routeOptions` afresh at each read).
    const asksToken = policy.token !== undefined || policy.tokenFile !== undefined;
    // The dashboard's page and files (api/dashboard.ts) load without the token, so that the page
    // can ask for it; they hold no data of the device. Host, Origin and Sec-Fetch-Site still apply.
    // Both the token and the file it is read from are set aside: a policy that keeps `tokenFile`
    // still requires what the file holds (the service beyond loopback always has one).
    // A network the owner named trusted (docs/security.md) is spared the token only; Host and
    // Origin rules still apply.
    const spared =
      asksToken &&
      (options.trusted?.includes(request.socket.remoteAddress) === true ||
        request.routeOptions.config.dashboardShell === true);
    const refusal = accessRefusal(
      { headers: request.headers, url: request.url, port: options.port() },
      spared ? withoutToken(policy) : policy,
    );
    done(refusal);
  });
}

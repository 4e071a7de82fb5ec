/**
 * The API port's network safety: every request, WebSocket upgrades included, passes the rules of
 * security/access.ts (Host, Origin, Sec-Fetch-Site, and the token when the service listens beyond
 * loopback), the same rules every websocket node's port applies. The dashboard's own files are
 * served without the token (the page asks for it), under the other rules.
 */
import type { FastifyInstance } from 'fastify';
import type { AccessPolicy, LslSettings } from '../core/access-policy.js';
import { accessRefusal } from '../security/access.js';
import type { TrustedNetworks } from '../security/trusted-networks.js';

export interface SecurityOptions {
  /** Required when set: `Authorization: Bearer <token>` or `?token=` on WebSocket upgrades. */
  token: string | undefined;
  /** Where the token lives; read at each request, so a rotated token applies at once. */
  tokenFile?: string;
  /** Origins allowed besides the service's own (`http://host:port`). */
  allowedOrigins: readonly string[];
  /** Host names allowed besides loopback names and the device's hostname. */
  allowedHosts: readonly string[];
  /** The device's hostname, read at each request (it can be changed through the API). */
  hostname: () => string;
  /** The port actually served, once listening. */
  port: () => number;
  /** Where LSL outlets and inlets open (loopback only when absent). */
  lsl?: LslSettings;
  /** Client networks whose requests need no token (`--trust-network`); none when absent. */
  trusted?: TrustedNetworks;
}

/** The rules as they stand now (the device's hostname can change). */
export function accessPolicy(options: SecurityOptions): AccessPolicy {
  return {
    token: options.token,
    ...(options.tokenFile === undefined ? {} : { tokenFile: options.tokenFile }),
    allowedOrigins: options.allowedOrigins,
    allowedHosts: options.allowedHosts,
    hostname: options.hostname(),
    ...(options.lsl === undefined ? {} : { lsl: options.lsl }),
  };
}

function withoutToken(policy: AccessPolicy): AccessPolicy {
  const { tokenFile: _file, ...rest } = policy;
  return { ...rest, token: undefined };
}

export function installSecurity(app: FastifyInstance, options: SecurityOptions): void {
  app.addHook('onRequest', async (request) => {
    const policy = accessPolicy(options);
    // The dashboard's page and files (api/dashboard.ts) load without the token, so that the page
    // can ask for it; they hold no data of the device. Host, Origin and Sec-Fetch-Site still apply.
    const shell = request.routeOptions.config.dashboardShell === true;
    // A network the owner named trusted (docs/security.md) is spared the token only; Host and
    // Origin rules still apply.
    const trusted = options.trusted?.includes(request.socket.remoteAddress) === true;
    const refusal = accessRefusal(
      { headers: request.headers, url: request.url, port: options.port() },
      trusted ? withoutToken(policy) : shell ? { ...policy, token: undefined } : policy,
    );
    if (refusal !== undefined) throw refusal;
  });
}

/**
 * Who may talk to a socket headsetd opens (docs/security.md): the API's port and every websocket
 * node's port apply these same rules, so that a web page in the user's browser, or a site that
 * rebinds its DNS name to the headset, can neither drive the device nor read its EEG on any of
 * them. Pure functions of a request's headers: the API calls them from a Fastify hook, a websocket
 * node from its HTTP server's upgrade handler inside a stream's worker thread.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { AccessPolicy } from '../../core/access-policy.js';
import { HeadsetdError } from '../../core/errors.js';
import { isListenAddress } from './listen-addresses.js';
import { currentToken } from './token.js';

export interface AccessRequest {
  readonly headers: IncomingHttpHeaders;
  /** The request's target (path and query), where a WebSocket upgrade may carry `?token=`. */
  readonly url: string;
  /** The port the socket serves. */
  readonly port: number;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/** True for a loopback host name or address, bracketed IPv6 included. */
export function isLoopbackName(name: string): boolean {
  return LOOPBACK_NAMES.has(name.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(name);
}

/** The host name of a `Host` header, lower case, without its port. */
export function hostName(hostHeader: string): string {
  if (hostHeader.startsWith('[')) return hostHeader.slice(0, hostHeader.indexOf(']') + 1).toLowerCase();
  // Every request passes here: a slice rather than a split's array (a hot line under polling).
  const colon = hostHeader.indexOf(':');
  return (colon < 0 ? hostHeader : hostHeader.slice(0, colon)).toLowerCase();
}

/**
 * Loopback names, the addresses the socket listens on, the machine's own name (and its `.local`
 * form), and `--allow-host`. Nothing a client of the API can change widens this.
 */
function hostAllowed(name: string, policy: AccessPolicy): boolean {
  if (isLoopbackName(name)) return true;
  if (isListenAddress(name, policy.listenAddresses)) return true;
  const machine = policy.hostname?.toLowerCase();
  if (machine !== undefined && machine !== '' && (name === machine || name === `${machine}.local`))
    return true;
  return policy.allowedHosts.some((h) => h.toLowerCase() === name);
}

/** The socket's own origins: the one its `Host` names, and its loopback names. */
function ownOrigins(hostHeader: string, port: number): string[] {
  return [`http://${hostHeader}`, `http://127.0.0.1:${port}`, `http://localhost:${port}`];
}

/**
 * An origin of the service's own port on a name of this device: a page the service served itself
 * (the dashboard), as trusted as the API that served it.
 */
function isServiceOrigin(origin: string, policy: AccessPolicy): boolean {
  if (policy.servicePort === undefined) return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return (
    url.protocol === 'http:' &&
    url.origin === origin &&
    (url.port === '' ? 80 : Number(url.port)) === policy.servicePort &&
    hostAllowed(url.hostname.toLowerCase(), policy)
  );
}

function isUpgrade(headers: IncomingHttpHeaders): boolean {
  return headers.upgrade?.toLowerCase() === 'websocket';
}

function presentedToken(request: AccessRequest): string | undefined {
  const header = request.headers.authorization;
  if (header?.startsWith('Bearer ') === true) return header.slice('Bearer '.length).trim();
  // A browser's WebSocket cannot set headers: upgrades may carry the token in the query.
  if (isUpgrade(request.headers)) {
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
    return new URLSearchParams(query).get('token') ?? undefined;
  }
  return undefined;
}

/**
 * Compares in constant time: both sides are hashed first, so the comparison always covers 32
 * bytes and its duration tells nothing of the expected token, not even its length.
 */
export function sameToken(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The token a request must carry, or undefined when none is required. */
function requiredToken(policy: AccessPolicy): string | undefined {
  return policy.tokenFile === undefined ? policy.token : currentToken(policy.tokenFile, policy.token);
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Why the request must be refused, or undefined when it may proceed. In order: a `Host` that is
 * not this device (DNS rebinding); an `Origin` that is neither the socket's own nor allowed; a
 * browser's request from another site that names no allowed origin (`Sec-Fetch-Site` `cross-site`
 * or `same-site`: an `<img>` or a form sends no `Origin`, yet its GET may act, such as measuring
 * impedance); a missing or wrong token where one is required.
 */
export function accessRefusal(request: AccessRequest, policy: AccessPolicy): HeadsetdError | undefined {
  const hostHeader = single(request.headers.host) ?? '';
  const name = hostName(hostHeader);
  if (!hostAllowed(name, policy)) {
    return new HeadsetdError(
      'forbidden_origin',
      `Requests for host '${name}' are refused; add it with --allow-host if it is this device.`,
      { host: name },
    );
  }
  const origin = single(request.headers.origin);
  if (origin !== undefined) {
    if (
      !ownOrigins(hostHeader, request.port).includes(origin) &&
      !policy.allowedOrigins.includes(origin) &&
      !isServiceOrigin(origin, policy)
    ) {
      return new HeadsetdError(
        'forbidden_origin',
        `Requests from origin '${origin}' are refused; allow it with --allow-origin.`,
        { origin },
      );
    }
  } else {
    const site = single(request.headers['sec-fetch-site'])?.toLowerCase();
    if (site === 'cross-site' || site === 'same-site') {
      return new HeadsetdError(
        'forbidden_origin',
        `Requests a browser sends from another site (Sec-Fetch-Site: ${site}) without an allowed Origin are refused; open the address directly, or send the request with fetch from an origin allowed with --allow-origin.`,
        { secFetchSite: site },
      );
    }
  }
  const expected = requiredToken(policy);
  if (expected !== undefined || policy.tokenFile !== undefined) {
    const token = presentedToken(request);
    // A file that never held a token (expected undefined) lets no request through.
    if (token === undefined || expected === undefined || !sameToken(token, expected)) {
      return new HeadsetdError(
        'authentication_required',
        'This socket listens beyond loopback and needs the service token: send Authorization: Bearer <token>, or ?token=<token> on a WebSocket upgrade (`headsetd token` prints it).',
      );
    }
  }
  return undefined;
}

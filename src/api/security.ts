/**
 * Network safety (API-NOTES.md §Security defaults): a bearer token when the service listens beyond
 * loopback, refusal of foreign `Origin`s (a web page in the user's browser must not drive the
 * headset) and of foreign `Host`s (DNS rebinding).
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HeadsetdError } from '../errors.js';

export interface SecurityOptions {
  /** Required when set: `Authorization: Bearer <token>` or `?token=` on WebSocket upgrades. */
  token: string | undefined;
  /** Origins allowed besides the service's own (`http://host:port`). */
  allowedOrigins: readonly string[];
  /** Host names allowed besides loopback names and the device's hostname. */
  allowedHosts: readonly string[];
  /** The device's hostname, read at each request (it can be changed through the API). */
  hostname: () => string;
  /** The port actually served, once listening. */
  port: () => number;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

function hostName(hostHeader: string): string {
  if (hostHeader.startsWith('[')) return hostHeader.slice(0, hostHeader.indexOf(']') + 1).toLowerCase();
  return (hostHeader.split(':')[0] ?? '').toLowerCase();
}

function isLoopback(name: string): boolean {
  return LOOPBACK_NAMES.has(name) || /^127\.\d+\.\d+\.\d+$/.test(name);
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function presentedToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header?.startsWith('Bearer ') === true) return header.slice('Bearer '.length).trim();
  if (request.headers.upgrade?.toLowerCase() === 'websocket') {
    const query = request.query as Record<string, unknown> | undefined;
    const token = query?.token;
    if (typeof token === 'string') return token;
  }
  return undefined;
}

export function installSecurity(app: FastifyInstance, options: SecurityOptions): void {
  app.addHook('onRequest', async (request) => {
    const name = hostName(request.headers.host ?? '');
    const device = options.hostname().toLowerCase();
    const hostOk =
      isLoopback(name) ||
      name === device ||
      name === `${device}.local` ||
      options.allowedHosts.includes(name);
    if (!hostOk) {
      throw new HeadsetdError(
        'forbidden_origin',
        `Requests for host '${name}' are refused; add it with --allow-host if it is this device.`,
        {
          host: name,
        },
      );
    }
    const origin = request.headers.origin;
    if (origin !== undefined) {
      const own = [
        `http://${request.headers.host ?? ''}`,
        `http://127.0.0.1:${options.port()}`,
        `http://localhost:${options.port()}`,
      ];
      if (!own.includes(origin) && !options.allowedOrigins.includes(origin)) {
        throw new HeadsetdError(
          'forbidden_origin',
          `Requests from origin '${origin}' are refused; allow it with --allow-origin.`,
          {
            origin,
          },
        );
      }
    }
    if (options.token !== undefined) {
      const token = presentedToken(request);
      if (token === undefined || !sameToken(token, options.token)) {
        throw new HeadsetdError(
          'authentication_required',
          'This service listens beyond loopback and needs its token: send Authorization: Bearer <token> (`headsetd token` prints it).',
        );
      }
    }
  });
}

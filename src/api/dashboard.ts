/**
 * The operator's dashboard (docs/dashboard.md): GET / answers its page and GET /dashboard/{file}
 * its script and style sheet, the files `npm run build` bundles from web/ into dist/web/. Nothing
 * else: the page talks to the API like any other client, with the same rules.
 *
 * These routes are the one exception to the token: beyond loopback a browser must be able to load
 * the page that asks for the token (it cannot send a header on a navigation). They carry no data
 * of the device, only the package's own files, and Host, Origin and Sec-Fetch-Site still apply
 * (src/api/security.ts). Every answer carries a Content-Security-Policy that lets the page load
 * from its own origin only, and connect to it and to WebSockets of its own host: nothing is
 * fetched from the network at run time.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HeadsetdError } from '../core/errors.js';
import { hostName } from '../platform/security/access.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A file of the dashboard's shell: served without the token (Host and Origin rules still apply). */
    dashboardShell?: boolean;
  }
}

/** The files of dist/web/ served, and their types. */
const FILES: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
};

/** A name fit to be written into the policy (the request's Host passed the Host rule already). */
const PLAIN_NAME = /^[a-z0-9.\-[\]:]+$/;

/**
 * The page's own origin only; `'unsafe-inline'` styles because the editor (CodeMirror) writes its
 * theme into style elements. `connect-src` allows the page's own origin (its requests and
 * WebSockets) and WebSockets to any port of the same host: the Outputs panel reads the frames of
 * the streams' websocket nodes, each on its own port (`host` is the name the page was loaded by).
 */
export function dashboardCsp(host: string): string {
  const sockets = PLAIN_NAME.test(host) ? ` ws://${host}:* wss://${host}:*` : '';
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    `connect-src 'self'${sockets}`,
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'none'",
  ].join('; ');
}

/**
 * Where the built files are: dist/web/ next to dist/api/ (the bundle's twin URL points there too),
 * or, when the service runs from its sources (tsx, tests), the dist/web/ of the last build.
 */
function webDir(): string | undefined {
  const candidates = [new URL('../web/', import.meta.url), new URL('../../dist/web/', import.meta.url)];
  return candidates.map((url) => fileURLToPath(url)).find((dir) => existsSync(`${dir}index.html`));
}

export function dashboardRoutes(app: FastifyInstance): void {
  const dir = webDir();
  const cache = new Map<string, Buffer>();
  const send = (request: FastifyRequest, reply: FastifyReply, file: string): FastifyReply => {
    const type = FILES[file];
    if (dir === undefined || type === undefined) {
      throw new HeadsetdError(
        'not_found',
        dir === undefined
          ? 'The dashboard is not built in this installation: run `npm run build`; the API is at /docs.'
          : `The dashboard has no file '${file}'.`,
      );
    }
    let body = cache.get(file);
    if (body === undefined) {
      body = readFileSync(`${dir}${file}`);
      cache.set(file, body);
    }
    return reply
      .type(type)
      .header('Content-Security-Policy', dashboardCsp(hostName(request.headers.host ?? '')))
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'no-referrer')
      .header('Cache-Control', 'no-cache')
      .send(body);
  };
  const options = { schema: { hide: true }, config: { dashboardShell: true } };
  app.get('/', options, async (request, reply) => send(request, reply, 'index.html'));
  // Browsers ask for /favicon.ico by themselves (a 404 is a console error on every load).
  app.get('/favicon.ico', options, async (request, reply) => send(request, reply, 'favicon.svg'));
  app.get<{ Params: { file: string } }>('/dashboard/:file', options, async (request, reply) =>
    send(request, reply, request.params.file),
  );
}

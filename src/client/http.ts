/**
 * The client's HTTP requests to the service: every failure becomes an {@link ApiError} (the
 * service's envelope) or a {@link ConnectionError} (nothing answered), so commands only handle
 * successes.
 *
 * Node's own `http` module, not `fetch`: a client command makes a request or a few and exits, and
 * loading fetch's implementation (undici) cost each command more CPU than the rest of its start
 * (docs/performance.md §Start-up). What fetch did is kept: its time limits, its handling of
 * redirects (the Fetch standard's: 307 and 308 keep the method and body, 301 and 302 make a POST a
 * GET, 303 makes any method but HEAD a GET, the token is not sent to another origin, at most 20),
 * and its failures read the same. Unlike fetch it connects to any port (fetch refused the "bad
 * ports" of other protocols, such as 6000).
 */
import http, { type IncomingMessage } from 'node:http';
import { ApiError, ConnectionError, envelopeOf } from './failures.js';
import type { Connection } from './connection.js';
import { errorMessage } from '../core/error-message.js';

export interface RequestOptions {
  query?: Record<string, string | number | boolean | readonly string[] | undefined>;
  /** A JSON value, sent as application/json, or text sent with `contentType`. */
  json?: unknown;
  text?: string;
  contentType?: string;
  /** Form fields, sent as application/x-www-form-urlencoded. */
  form?: Record<string, string>;
  accept?: string;
  signal?: AbortSignal | undefined;
}

/** How long a connection may take to open, and an open one may stay silent. */
export interface Timeouts {
  connectMs: number;
  idleMs: number;
}

/**
 * fetch's: 10 s to connect, and 300 s for the answer's headers and between pieces of its body
 * (a long request is answered when it ends; a download may stall for a while).
 */
export const TIMEOUTS: Timeouts = { connectMs: 10_000, idleMs: 300_000 };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 20;

interface Outgoing {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string | undefined;
}

/** What a failed connection says, in words. */
function connectionReason(error: unknown): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ECONNREFUSED':
      return 'connection refused; is headsetd running there? (headsetd serve)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'unknown host';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'the connection was closed';
    case 'ETIMEDOUT':
      return 'the connection timed out';
    default:
      return errorMessage(error);
  }
}

function timedOut(): Error {
  return Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' });
}

/** One request and its answer's head; the body is left to read. */
async function exchange(
  outgoing: Outgoing,
  timeouts: Timeouts,
  signal: AbortSignal | undefined,
  agents: Map<string, http.Agent>,
) {
  const protocol = outgoing.url.protocol;
  // https only for an https:// --url: loading TLS is not free.
  const transport = protocol === 'https:' ? await import('node:https') : http;
  let agent = agents.get(protocol);
  if (agent === undefined) {
    // As Node's global agent, which the client used before it had its own.
    agent = new transport.Agent({ keepAlive: true, scheduling: 'lifo', timeout: 5000 });
    agents.set(protocol, agent);
  }
  return new Promise<IncomingMessage>((resolve, reject) => {
    const headers: Record<string, string | number> = { ...outgoing.headers };
    if (outgoing.body !== undefined) headers['content-length'] = Buffer.byteLength(outgoing.body);
    const request = transport.request(outgoing.url, {
      method: outgoing.method,
      headers,
      agent,
      ...(signal === undefined ? {} : { signal }),
    });
    request.setTimeout(timeouts.connectMs, () => request.destroy(timedOut()));
    request.once('socket', (socket) => {
      // A kept-alive socket is connected already.
      if (!socket.connecting) request.setTimeout(timeouts.idleMs);
      else socket.once('connect', () => request.setTimeout(timeouts.idleMs));
    });
    request.once('response', resolve);
    request.once('error', reject);
    request.end(outgoing.body);
  });
}

/** The request a redirect leads to, as fetch makes it. */
function redirected(outgoing: Outgoing, status: number, location: string): Outgoing {
  const url = new URL(location, outgoing.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`redirected to ${url.href}, which is not an http:// or https:// address`);
  const headers = { ...outgoing.headers };
  if (url.origin !== outgoing.url.origin) delete headers.authorization;
  const toGet =
    (status === 303 && outgoing.method !== 'GET' && outgoing.method !== 'HEAD') ||
    ((status === 301 || status === 302) && outgoing.method === 'POST');
  if (!toGet) return { ...outgoing, url, headers };
  delete headers['content-type'];
  return { method: 'GET', url, headers, body: undefined };
}

/** An answer's whole body as text. */
export async function answerText(answer: IncomingMessage): Promise<string> {
  answer.setEncoding('utf8');
  let text = '';
  for await (const chunk of answer) text += chunk as string;
  return text;
}

export class ApiClient {
  /**
   * The command's own connections (one agent per protocol), kept alive between its requests and
   * closed by {@link close}: a command run in a longer-lived process (a test's) leaves no socket
   * behind and shares none with the next command, as a command in a process of its own.
   */
  private readonly agents = new Map<string, http.Agent>();

  constructor(
    readonly connection: Connection,
    private readonly timeouts: Timeouts = TIMEOUTS,
  ) {}

  /** Closes the command's connections. */
  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }

  /** The absolute URL of a path with its query (arrays as comma lists, which every route takes). */
  url(path: string, query: RequestOptions['query'] = {}): URL {
    const url = new URL(`${this.connection.url}${path}`);
    for (const [key, value] of Object.entries(query)) {
      if (value === undefined) continue;
      url.searchParams.set(key, Array.isArray(value) ? value.join(',') : String(value));
    }
    return url;
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return this.connection.token === undefined
      ? extra
      : { ...extra, authorization: `Bearer ${this.connection.token}` };
  }

  private unreachable(error: unknown): unknown {
    if ((error as Error).name === 'AbortError') return error;
    return new ConnectionError(`cannot reach ${this.connection.url}: ${connectionReason(error)}`);
  }

  /** The answer of a request that succeeded (2xx), its body unread; throws the envelope otherwise. */
  async send(method: string, path: string, options: RequestOptions = {}): Promise<IncomingMessage> {
    const headers: Record<string, string> = {};
    let body: string | undefined;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.text !== undefined) {
      headers['content-type'] = options.contentType ?? 'text/plain';
      body = options.text;
    } else if (options.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    }
    // The answers are JSON: said so, rather than */*.
    headers.accept = options.accept ?? 'application/json';
    let outgoing: Outgoing = {
      method,
      url: this.url(path, options.query),
      headers: this.headers(headers),
      body,
    };
    for (let redirects = 0; ; redirects++) {
      let answer: IncomingMessage;
      try {
        answer = await exchange(outgoing, this.timeouts, options.signal, this.agents);
        const status = answer.statusCode ?? 0;
        const location = answer.headers.location;
        if (REDIRECTS.has(status) && location !== undefined) {
          answer.resume();
          if (redirects === MAX_REDIRECTS) throw new Error(`more than ${String(MAX_REDIRECTS)} redirects`);
          outgoing = redirected(outgoing, status, location);
          continue;
        }
      } catch (error) {
        throw this.unreachable(error);
      }
      const status = answer.statusCode ?? 0;
      if (status < 200 || status > 299) {
        const text = await answerText(answer).catch(() => '');
        throw new ApiError(status, envelopeOf(status, text));
      }
      return answer;
    }
  }

  /** A request answered with JSON: its parsed body. */
  async request<T = Record<string, unknown>>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<T> {
    const answer = await this.send(method, path, options);
    let text: string;
    try {
      text = await answerText(answer);
    } catch (error) {
      throw this.unreachable(error);
    }
    try {
      return (text === '' ? {} : JSON.parse(text)) as T;
    } catch {
      throw new ConnectionError(`${method} ${path}: the service answered something that is not JSON`);
    }
  }

  get<T = Record<string, unknown>>(path: string, options?: RequestOptions): Promise<T> {
    return this.request<T>('GET', path, options);
  }

  post<T = Record<string, unknown>>(path: string, options?: RequestOptions): Promise<T> {
    return this.request<T>('POST', path, options);
  }
}

/**
 * The client's HTTP requests to the service (Node's fetch): every failure becomes an
 * {@link ApiError} (the service's envelope) or a {@link ConnectionError} (nothing answered), so
 * commands only handle successes.
 */
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

/** What a failed connection's cause says, in words (fetch only says "fetch failed"). */
function connectionReason(error: unknown): string {
  const cause = (error as { cause?: NodeJS.ErrnoException }).cause;
  switch (cause?.code) {
    case 'ECONNREFUSED':
      return 'connection refused; is headsetd running there? (headsetd serve)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'unknown host';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'the connection was closed';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'the connection timed out';
    default:
      // undici refuses the ports of other protocols (the Fetch standard's "bad ports": 1, 9, 25, 6000, ...).
      if (cause?.message === 'bad port')
        return 'that port is reserved for another protocol and never used for HTTP; use another port';
      return cause === undefined ? errorMessage(error) : errorMessage(cause);
  }
}

export class ApiClient {
  constructor(readonly connection: Connection) {}

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

  /** The raw answer of a request that succeeded (2xx); throws the envelope otherwise. */
  async fetch(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
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
    // The answers are JSON: said so, rather than fetch's */*.
    headers.accept = options.accept ?? 'application/json';
    const url = this.url(path, options.query);
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: this.headers(headers),
        ...(body === undefined ? {} : { body }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      throw new ConnectionError(`cannot reach ${this.connection.url}: ${connectionReason(error)}`);
    }
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      throw new ApiError(response.status, envelopeOf(response.status, text));
    }
    return response;
  }

  /** A request answered with JSON: its parsed body. */
  async request<T = Record<string, unknown>>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<T> {
    const response = await this.fetch(method, path, options);
    const text = await response.text();
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

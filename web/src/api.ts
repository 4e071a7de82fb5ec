/**
 * The dashboard's one way to the API: fetch on the page's own origin, with the service token as
 * `Authorization: Bearer` when one was entered (kept in sessionStorage, so it leaves with the tab),
 * and WebSocket URLs with `?token=` (a browser's WebSocket cannot set headers). Errors arrive as
 * the API's envelope and are thrown as ApiError, keeping `code`, `message` and `details`.
 */

const TOKEN_KEY = 'headsetd.token';

export interface ErrorDetails {
  path?: string;
  line?: number;
  column?: number;
  errors?: { path?: string; message: string; line?: number }[];
  [key: string]: unknown;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetails = {},
  ) {
    super(message);
  }
}

export function token(): string | undefined {
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

export function setToken(value: string | undefined): void {
  if (value === undefined || value === '') sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, value);
  unauthorizedListeners.forEach((f) => {
    f(false);
  });
}

const unauthorizedListeners = new Set<(needed: boolean) => void>();

/** Called with true whenever the API answers 401: the page then asks for the token. */
export function onAuthNeeded(listener: (needed: boolean) => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  const t = token();
  return t === undefined ? extra : { ...extra, Authorization: `Bearer ${t}` };
}

export interface RequestOptions {
  method?: string;
  /** A JSON body (an object), or text sent with `contentType`. */
  body?: unknown;
  contentType?: string;
  accept?: string;
}

/** The raw answer, after a 2xx; throws ApiError otherwise. */
export async function request(path: string, options: RequestOptions = {}): Promise<Response> {
  const init: RequestInit = { method: options.method ?? 'GET', cache: 'no-store' };
  const extra: Record<string, string> = {};
  if (options.accept !== undefined) extra.Accept = options.accept;
  if (options.body !== undefined) {
    const text = typeof options.body === 'string' && options.contentType !== undefined;
    extra['Content-Type'] = options.contentType ?? 'application/json';
    init.body = text ? (options.body as string) : JSON.stringify(options.body);
  }
  init.headers = headers(extra);
  const response = await fetch(path, init);
  if (response.ok) return response;
  let envelope: { error?: { code?: string; message?: string; details?: ErrorDetails } } = {};
  try {
    envelope = (await response.json()) as typeof envelope;
  } catch {
    // Not the envelope (a proxy's page): the status says enough.
  }
  if (response.status === 401) {
    unauthorizedListeners.forEach((f) => {
      f(true);
    });
  }
  const error = envelope.error ?? {};
  throw new ApiError(
    response.status,
    error.code ?? 'http_error',
    error.message ?? `${init.method ?? 'GET'} ${path} answered ${response.status}.`,
    error.details ?? {},
  );
}

/** The answer's JSON, after a 2xx. */
export async function api<T = Record<string, unknown>>(
  path: string,
  options: RequestOptions = {},
): Promise<T> {
  const response = await request(path, options);
  return (await response.json()) as T;
}

/**
 * `ws://` (or `wss://`) on the page's own host, with the token when one is set; on another `port`
 * of that host when given (a websocket node's).
 */
export function socketUrl(path: string, port?: number): string {
  const url = new URL(path, location.href);
  url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
  if (port !== undefined) url.port = String(port);
  const t = token();
  if (t !== undefined) url.searchParams.set('token', t);
  return url.href;
}

/** A message a person can read for any failure. */
export function describe(error: unknown): string {
  if (error instanceof ApiError) return `${error.message} (${error.code})`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Requests made as the maker's Python SDK makes them: Python `requests` with its default headers
 * (User-Agent python-requests, Accept `*\/*`, gzip), a JSON body (`json=`) or form fields (`data=`:
 * a list is its key repeated, an empty list and None are left out), the SDK's timeout for the call
 * (an answer later than it is the SDK's failure), and `raise_for_status()`: any 4xx or 5xx fails.
 */

export interface SdkRequest {
  readonly json?: unknown;
  readonly form?: Readonly<Record<string, unknown>>;
  /** The SDK's timeout for this call, ms (none when omitted: set_name and the config store). */
  readonly timeoutMs?: number;
}

export interface SdkAnswer {
  readonly status: number;
  readonly body: unknown;
}

const HEADERS = {
  'user-agent': 'python-requests/2.31.0',
  accept: '*/*',
  'accept-encoding': 'gzip, deflate',
  connection: 'keep-alive',
};

/** How `requests` writes one form value: str() of it (True/False for booleans). */
function formValue(v: unknown): string {
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number' || typeof v === 'string') return `${v}`;
  return JSON.stringify(v);
}

/** `requests`' encoding of `data=dict`: lists repeat the key, None is dropped, numbers as text. */
export function formOf(fields: Readonly<Record<string, unknown>>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) {
    const values = Array.isArray(value) ? (value as unknown[]) : [value];
    for (const v of values) {
      if (v === null || v === undefined) continue;
      const text = formValue(v);
      params.append(key, text);
    }
  }
  return params.toString();
}

/** The call as the SDK makes it; throws as `raise_for_status` does, with the answer's text. */
export async function sdkCall(
  base: string,
  method: string,
  path: string,
  request: SdkRequest = {},
): Promise<SdkAnswer> {
  const headers: Record<string, string> = { ...HEADERS };
  let body: string | undefined;
  if (request.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(request.json);
  } else if (request.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = formOf(request.form);
  }
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
    ...(request.timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(request.timeoutMs) }),
  });
  const text = await response.text();
  if (response.status >= 400) throw new Error(`${response.status} for ${method} ${path}: ${text}`);
  return { status: response.status, body: JSON.parse(text) as unknown };
}

/** The SDK's timeouts (ms) of the calls that have one. */
export const SDK_TIMEOUT = { default: 1000, createStream: 5000 } as const;

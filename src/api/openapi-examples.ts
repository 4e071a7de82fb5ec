/**
 * One example request and answer per operation of the OpenAPI document, added to it as the
 * document is generated (openapi.ts). They are answers the service gave (the simulated headset,
 * seated), shortened where a list was long; a test validates every example against the schema it
 * illustrates, so an example cannot outlive a change of its schema. Keys are `METHOD /path` with
 * OpenAPI's `{param}`; the `/streams` aliases share the examples of `/stream/streams` (the maker's
 * SDK paths under /streams have their own). The
 * WebSocket paths show one message in their 101 answer. `responses` holds the examples of other
 * success codes. The examples themselves are in openapi-examples/, one file per part of the API.
 */
import { GUIDE_EXAMPLES } from './openapi-examples/guide-examples.js';
import { HARDWARE_EXAMPLES } from './openapi-examples/hardware-examples.js';
import { INSTINCT_EXAMPLES } from './openapi-examples/instinct-examples.js';
import { QUICK_STREAM_EXAMPLES } from './openapi-examples/quick-stream-examples.js';
import { STATUS_EXAMPLES } from './openapi-examples/status-examples.js';
import { STREAM_EXAMPLES } from './openapi-examples/stream-examples.js';
import { SYSTEM_EXAMPLES } from './openapi-examples/system-examples.js';
import type { OperationExamples } from './openapi-examples/operation-examples.js';

export type { OperationExamples };

export const OPERATION_EXAMPLES: Readonly<Record<string, OperationExamples>> = {
  ...STREAM_EXAMPLES,
  ...QUICK_STREAM_EXAMPLES,
  ...SYSTEM_EXAMPLES,
  ...STATUS_EXAMPLES,
  ...HARDWARE_EXAMPLES,
  ...GUIDE_EXAMPLES,
  ...INSTINCT_EXAMPLES,
};

/** An error answer, as every operation's 4xx and 5xx responses show it. */
export const ERROR_EXAMPLE = {
  success: false,
  error: {
    code: 'invalid_request',
    message: "The stream at /nodes/0/config/amplitudes: signal-generator: 'amplitudes' is required.",
    details: {
      path: '/nodes/0/config/amplitudes',
      errors: [{ path: '/nodes/0/config/amplitudes', message: "signal-generator: 'amplitudes' is required" }],
    },
  },
};

/** The examples of one route, found by its method and path (Fastify's `:param` or OpenAPI's `{param}`). */
export function examplesOf(method: string, url: string): OperationExamples | undefined {
  const path = url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  const canonical = path === '/streams' || path.startsWith('/streams/') ? `/stream${path}` : path;
  // The maker's SDK paths (/streams/stream, /streams/node, ...) have examples of their own.
  return (
    OPERATION_EXAMPLES[`${method.toUpperCase()} ${path}`] ??
    OPERATION_EXAMPLES[`${method.toUpperCase()} ${canonical}`]
  );
}

type RouteSchema = { body?: unknown; response?: Record<string, unknown> } & Record<string, unknown>;

/** The schema of an answer with its example: a JSON schema gets `examples`, a response object (text, files) its media types' `example`. */
function withResponseExample(schema: unknown, example: unknown): unknown {
  if (schema === null || typeof schema !== 'object') return schema;
  const content = (schema as { content?: Record<string, object> }).content;
  if (content === undefined) return { ...schema, examples: [example] };
  const withText = Object.fromEntries(
    Object.entries(content).map(([type, media]) => [
      type,
      typeof example === 'string' && (type.startsWith('text/') || type.startsWith('image/svg'))
        ? { ...media, example }
        : media,
    ]),
  );
  return { ...schema, content: withText };
}

/** A copy of a route's schema with its examples: the body's, the first success answer's, other answers'. */
export function withExamples<T>(schema: T, method: string | string[], url: string): T {
  if (schema === undefined || schema === null) return schema;
  const methods = Array.isArray(method) ? method : [method];
  const examples = methods.map((m) => examplesOf(m, url)).find((e) => e !== undefined);
  if (examples === undefined) return schema;
  const route = { ...(schema as RouteSchema) };
  if (examples.request !== undefined && route.body !== undefined && route.body !== null) {
    route.body = { ...route.body, examples: [examples.request] };
  }
  const response = { ...route.response };
  const success = Object.keys(response).find((code) => code.startsWith('2'));
  if (examples.response !== undefined && success !== undefined) {
    response[success] = withResponseExample(response[success], examples.response);
  }
  if (examples.namedResponses !== undefined && success !== undefined) {
    // @fastify/swagger moves `x-examples` to the media type's named `examples`.
    response[success] = { ...(response[success] as object), 'x-examples': examples.namedResponses };
  }
  for (const [code, example] of Object.entries(examples.responses ?? {})) {
    if (response[code] !== undefined) response[code] = withResponseExample(response[code], example);
  }
  const upgrade = response['101'] as { description?: string } | undefined;
  if (examples.message !== undefined && upgrade !== undefined) {
    response['101'] = {
      ...upgrade,
      description: `${upgrade.description ?? ''} A message: \`${JSON.stringify(examples.message)}\``.trim(),
    };
  }
  route.response = response;
  return route as T;
}

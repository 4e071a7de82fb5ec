/**
 * Request bodies (docs/api.md §Requests): JSON, YAML under its three media types, and
 * form-urlencoded. Each route says which it accepts (`config.accepts`); anything else is a 415
 * before the body is even read. Parse failures are 400s with the parser's message; every parsed
 * body passes assertDocument (nesting bound, no `__proto__`, `constructor` or `prototype` member).
 *
 * The one way a route reads its body's fields: the parsers here make `request.body` (form fields
 * as an object of strings, a repeated key as an array of them), the route's TypeBox schema
 * validates it (api/validation.ts), and the handler reads the typed fields. Form fields are text,
 * so a numeric field's schema takes a number or a string, and the handler converts it with
 * {@link formNumber} or {@link formIntegers}. No route parses or checks a body by hand
 * (test/docs/api-bodies.test.ts).
 */
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HeadsetdError } from '../core/errors.js';
import { assertDocument, RESERVED_KEYS, reservedKey } from '../platform/schemas/depth.js';
import { parseJsonText } from '../platform/schemas/json-text.js';
import { parseYamlText } from '../platform/schemas/yaml-text.js';

export type BodyKind = 'json' | 'merge-patch' | 'yaml' | 'form' | 'text';

export const MEDIA_TYPES: Record<BodyKind, readonly string[]> = {
  json: ['application/json'],
  // RFC 7396: JSON that says it is a merge patch, accepted only where the body is one.
  'merge-patch': ['application/merge-patch+json'],
  yaml: ['text/yaml', 'application/yaml', 'application/x-yaml'],
  form: ['application/x-www-form-urlencoded'],
  text: ['text/plain'],
};

/** 1 MiB (docs/api.md §Error codes, payload_too_large). */
export const BODY_LIMIT = 1024 * 1024;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Body kinds this route accepts; routes without it take none. */
    accepts?: readonly BodyKind[];
  }
}

function mediaType(request: FastifyRequest): string | undefined {
  const header = request.headers['content-type'];
  return header?.split(';')[0]?.trim().toLowerCase();
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function parseJson(text: string): unknown {
  return text.trim() === '' ? undefined : parseJsonText(text);
}

/**
 * A form body that is JSON text: what `curl -d '{"signal":"start"}'` sends (curl's -d says
 * form-urlencoded unless told otherwise). Read as a form it is one field named after the whole
 * text, and the route would answer that `signal` is missing; this says what happened instead.
 */
function looksLikeJson(text: string): boolean {
  const trimmed = text.trim();
  return (
    (trimmed.startsWith('{') && trimmed.endsWith('}')) || (trimmed.startsWith('[') && trimmed.endsWith(']'))
  );
}

/** Form fields as an object; a key given more than once becomes an array (e.g. `channels`). */
export function parseForm(text: string): Record<string, string | string[]> {
  if (looksLikeJson(text)) {
    throw new HeadsetdError(
      'invalid_request',
      "The body was read as form fields (its Content-Type is application/x-www-form-urlencoded, curl -d's default) but it is JSON: send it with Content-Type: application/json (curl: -H 'Content-Type: application/json'), or send form fields (name=value&name2=value2).",
      { path: '', contentType: 'application/x-www-form-urlencoded', expected: 'application/json' },
    );
  }
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    // `out['__proto__'] = value` would be dropped silently, not refused.
    if (RESERVED_KEYS.has(key)) throw reservedKey('', key);
    const existing = out[key];
    if (existing === undefined) out[key] = value;
    else out[key] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}

export async function registerBodyParsers(app: FastifyInstance): Promise<void> {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser(
    [...MEDIA_TYPES.json, ...MEDIA_TYPES['merge-patch']],
    { parseAs: 'string', bodyLimit: BODY_LIMIT },
    (_req, body, done) => {
      try {
        const value = parseJson(body as string);
        assertDocument(value);
        done(null, value);
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );
  app.addContentTypeParser(
    [...MEDIA_TYPES.yaml, ...MEDIA_TYPES.text],
    { parseAs: 'string', bodyLimit: BODY_LIMIT },
    (_req, body, done) => {
      try {
        const text = body as string;
        const value = text.trim() === '' ? undefined : parseYamlText(text);
        assertDocument(value);
        done(null, value);
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );
  await app.register(formbody, { bodyLimit: BODY_LIMIT, parser: parseForm });

  // Refuse unaccepted content types before reading the body. A callback hook: every request,
  // GETs included, passes here, and an async hook cost a promise each (docs/performance.md).
  app.addHook('preParsing', (request, _reply, payload, done) => {
    if (!hasBody(request)) {
      done(null, payload);
      return;
    }
    const accepts = request.routeOptions.config.accepts ?? [];
    const type = mediaType(request);
    const allowed = accepts.flatMap((k) => MEDIA_TYPES[k]);
    if (type === undefined || !allowed.includes(type)) {
      const got = type === undefined ? 'no Content-Type' : `'${type}'`;
      // A JSON body sent as text (curl --data-binary without -H, fetch with a string body) is the
      // usual cause: say how to label JSON.
      const asText = type === undefined || type === 'text/plain';
      const curl =
        asText && accepts.includes('json')
          ? " (for JSON: -H 'Content-Type: application/json')"
          : type === MEDIA_TYPES['merge-patch'][0] && accepts.includes('json')
            ? ' (the body of this route is no merge patch: label it application/json)'
            : accepts.includes('yaml')
              ? " (curl: -H 'Content-Type: text/yaml' --data-binary @file.yaml)"
              : '';
      const hint =
        allowed.length === 0 ? 'this route takes no body' : `send one of ${allowed.join(', ')}${curl}`;
      done(
        new HeadsetdError('unsupported_media_type', `The body has ${got}; ${hint}.`, {
          accepted: allowed,
        }),
      );
      return;
    }
    done(null, payload);
  });
}

/**
 * A numeric field given as a JSON number or as form text (`"24"` → 24), its schema having checked
 * it is one of the two. Text that is not a number is malformed (400); the range is the caller's
 * (or the device's) check.
 */
export function formNumber(value: number | string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
    return Number(value);
  throw new HeadsetdError(
    'invalid_request',
    `The field '${name}' must be a number; got ${JSON.stringify(value)}.`,
    { path: `/${name}` },
  );
}

/**
 * A list of integers as form fields give it (the field repeated; once is a list of one; absent is
 * empty), each a JSON integer or text of one; 400 with a pointer to the first that is not.
 */
export function formIntegers(value: unknown, name: string): number[] {
  const list = value === undefined ? [] : Array.isArray(value) ? (value as unknown[]) : [value];
  return list.map((item, index) => {
    const number = typeof item === 'string' && item.trim() === '' ? Number.NaN : Number(item);
    if (!Number.isInteger(number)) {
      throw new HeadsetdError(
        'invalid_request',
        `The field '${name}' must hold integers; got ${JSON.stringify(item)}.`,
        { path: `/${name}/${index}` },
      );
    }
    return number;
  });
}

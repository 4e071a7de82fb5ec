/**
 * Requests generated from the service's own OpenAPI document (GET /openapi.json): for every path
 * and method, a value for each parameter and body that the schema describes, then one mutation of
 * it (a missing or extra field, a wrong type, an edge number, an odd string, deep nesting, a
 * prototype key, a wrong or absent content type, a truncated body, an odd path id). Everything is
 * drawn from one seeded PRNG, so a seed names a whole run and a failure can be replayed.
 */
import { stringify as toYaml } from 'yaml';
import { prng } from './prng.js';

/** Draws from one seeded mulberry32 (./prng.ts): small, fast and good enough to spread requests over a schema. */
export class Rng {
  private readonly random: () => number;
  constructor(seed: number) {
    this.random = prng(seed);
  }

  next(): number {
    return this.random();
  }

  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from nothing');
    return items[this.int(items.length)] as T;
  }

  /** A UUID (version 4 form) drawn from this generator, so that it is reproducible too. */
  uuid(): string {
    const hex = Array.from({ length: 32 }, () => this.int(16).toString(16));
    hex[12] = '4';
    hex[16] = '89ab'[this.int(4)] ?? '8';
    const h = hex.join('');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
}

type Schema = Record<string, unknown>;

export interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  required: boolean;
  schema: Schema;
}

export interface Operation {
  method: string;
  /** The OpenAPI path, `{id}` placeholders and all. */
  path: string;
  parameters: Parameter[];
  /** Media type → body schema; undefined when the route takes no body. */
  body: Record<string, Schema> | undefined;
  /** Documented status codes. */
  responses: string[];
}

/** Every operation of the document (WebSocket-only GETs included: without an upgrade they answer like any GET). */
export function operationsOf(document: { paths: Record<string, Record<string, unknown>> }): Operation[] {
  const methods = ['get', 'post', 'put', 'patch', 'delete'];
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => methods.includes(method))
      .map(([method, raw]) => {
        const op = raw as {
          parameters?: Parameter[];
          requestBody?: { content?: Record<string, { schema?: Schema }> };
          responses?: Record<string, unknown>;
        };
        const content = op.requestBody?.content;
        return {
          method: method.toUpperCase(),
          path,
          parameters: op.parameters ?? [],
          body:
            content === undefined
              ? undefined
              : Object.fromEntries(Object.entries(content).map(([type, c]) => [type, c.schema ?? {}])),
          responses: Object.keys(op.responses ?? {}),
        };
      }),
  );
}

/** What the service has now that a valid request names: ids of streams, nodes, recordings. */
export interface Pools {
  streamIds: readonly string[];
  nodeIds: readonly string[];
  recordingNames: readonly string[];
}

const ELECTRODES = ['PZ', 'O1', 'O2', 'P3', 'P4', 'T5', 'T6', 'C3', 'C4', 'T3', 'T4', 'CMS', 'DRL', 'CZ'];
const EXECUTABLES = ['signal-generator', 'filter', 'logger', 'websocket', 'recorder', 'eeg-source'];
const WORDS = ['start', 'stop', 'pause', 'resume', 'marker', 'move', 'RETRACT', 'eeg', 'all', 'png', 'a'];

/** Strings that upset parsers, routers and file systems. */
export const ODD_STRINGS: readonly string[] = [
  '',
  ' ',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e999',
  '-0',
  '0x10',
  '__proto__',
  'constructor',
  'prototype',
  '..',
  '../../etc/passwd',
  'a\u0000b',
  '\u0000',
  '\uD800',
  'é\u0301🧠\u202E\uFEFF',
  'x'.repeat(5000),
  '%00',
  '%',
  "'; DROP TABLE streams; --",
  '${7*7}{{7*7}}',
];

/** Numbers at the edges of what JSON, doubles and sample rates allow. */
const ODD_NUMBERS: readonly number[] = [
  0,
  -1,
  -0,
  1e308,
  -1e308,
  5e-324,
  Number.MAX_SAFE_INTEGER + 2,
  2 ** 31,
  -(2 ** 31) - 1,
  0.5,
  1e21,
];

function stringFor(name: string, schema: Schema, r: Rng, pools: Pools): string {
  if (typeof schema.pattern === 'string' && schema.pattern.includes('[0-9a-fA-F]{8}')) {
    return r.chance(0.7) && pools.streamIds.length > 0 ? r.pick(pools.streamIds) : r.uuid();
  }
  const key = name.toLowerCase();
  if (/electrode|motor|channel/.test(key)) return r.pick(ELECTRODES);
  if (key === 'executable') return r.pick(EXECUTABLES);
  if (key === 'source' || key === 'destination' || key === 'target' || key === 'nodeid')
    return r.pick(pools.nodeIds);
  if (key === 'filename' || key === 'name') return r.pick([...pools.recordingNames, 'fuzz.bdf', 'fuzz.csv']);
  if (key === 'hostname') return r.pick(['headset', 'headset-2', 'a.b']);
  if (key === 'color') return r.pick(['#ff0000', 'red', '00ff00']);
  if (key === 'signal') return r.pick(['start', 'stop', 'pause', 'resume', 'marker', 'reconcile']);
  return r.pick(WORDS);
}

function numberFor(schema: Schema, r: Rng): number {
  const min = typeof schema.minimum === 'number' ? schema.minimum : 0;
  const max = typeof schema.maximum === 'number' ? schema.maximum : Math.max(min, 100);
  const value = min + r.next() * (max - min);
  return schema.type === 'integer' ? Math.round(value) : Math.round(value * 100) / 100;
}

/** A value the schema describes (valid as far as JSON Schema says; its meaning is the service's). */
export function valueFor(schema: Schema, r: Rng, pools: Pools, name = '', depth = 0): unknown {
  if (Array.isArray(schema.enum)) return r.pick(schema.enum as unknown[]);
  if ('const' in schema) return schema.const;
  const choices = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(choices) && choices.length > 0) return valueFor(r.pick(choices), r, pools, name, depth);
  const type = Array.isArray(schema.type) ? r.pick(schema.type as string[]) : schema.type;
  switch (type) {
    case 'string':
      return stringFor(name, schema, r, pools);
    case 'number':
    case 'integer':
      return numberFor(schema, r);
    case 'boolean':
      return r.chance(0.5);
    case 'null':
      return null;
    case 'array': {
      const items = (schema.items ?? {}) as Schema;
      const count = depth > 4 ? 0 : 1 + r.int(3);
      return Array.from({ length: count }, () => valueFor(items, r, pools, name, depth + 1));
    }
    case 'object':
    case undefined: {
      if (type === undefined && schema.properties === undefined) return r.pick(['a', 1, true, null]);
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set((schema.required ?? []) as string[]);
      const out: Record<string, unknown> = {};
      for (const [key, sub] of Object.entries(properties)) {
        if (required.has(key) || (depth < 4 && r.chance(0.6)))
          out[key] = valueFor(sub, r, pools, key, depth + 1);
      }
      return out;
    }
    default:
      return null;
  }
}

/** Paths (as key lists) to every value inside `value`. */
function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const here = [prefix];
  if (Array.isArray(value)) return [...here, ...value.flatMap((v, i) => pathsOf(v, [...prefix, i]))];
  if (value !== null && typeof value === 'object')
    return [...here, ...Object.entries(value).flatMap(([k, v]) => pathsOf(v, [...prefix, k]))];
  return here;
}

function setAt(root: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  // defineProperty, so that a key named __proto__ becomes a member rather than a prototype.
  Object.defineProperty(node, path.at(-1) as string, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return copy;
}

function deleteAt(root: unknown, path: (string | number)[]): unknown {
  if (path.length === 0) return undefined;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path.at(-1) as string | number;
  if (Array.isArray(node)) node.splice(Number(last), 1);
  else Reflect.deleteProperty(node, last);
  return copy;
}

function nested(depth: number, asArray: boolean): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = asArray ? [value] : { a: value };
  return value;
}

/** A misspelling of `word`: one letter dropped, doubled, swapped or changed. */
function misspell(word: string, r: Rng): string {
  if (word.length < 2) return `${word}x`;
  const i = r.int(word.length - 1);
  switch (r.int(4)) {
    case 0:
      return word.slice(0, i) + word.slice(i + 1);
    case 1:
      return word.slice(0, i) + (word[i] ?? '') + word.slice(i);
    case 2:
      return word.slice(0, i) + (word[i + 1] ?? '') + (word[i] ?? '') + word.slice(i + 2);
    default:
      return `${word.slice(0, i)}q${word.slice(i + 1)}`;
  }
}

/** A value of the wrong kind or at an edge. */
function oddValue(r: Rng): unknown {
  switch (r.int(7)) {
    case 0:
      return r.pick(ODD_STRINGS);
    case 1:
      return r.pick(ODD_NUMBERS);
    case 2:
      return r.pick([null, true, false, [], {}, [[]], { '': '' }]);
    case 3:
      return nested(5 + r.int(10), r.chance(0.5));
    case 4:
      return 'x'.repeat(100_000);
    case 5:
      return Array.from({ length: 1000 }, (_, i) => i);
    default:
      return r.pick(['1', '250', 'true', 'O1,O2', 'all']);
  }
}

export interface BodyPlan {
  value: unknown;
  note: string;
}

/** One mutation of a valid body (or none: a quarter of the requests stay valid). */
export function mutateBody(valid: unknown, schema: Schema, r: Rng): BodyPlan {
  const paths = pathsOf(valid);
  const path = r.pick(paths);
  const at = `/${path.join('/')}`;
  switch (r.int(9)) {
    case 0:
    case 1:
      return { value: valid, note: 'valid' };
    case 2:
      return { value: deleteAt(valid, path), note: `without ${at}` };
    case 3: {
      // An extra field: a misspelling of a known one (or of a word), or a prototype key.
      const objects = paths.filter((p) => {
        const v = p.reduce<unknown>((node, k) => (node as Record<string | number, unknown>)[k], valid);
        return v !== null && typeof v === 'object' && !Array.isArray(v);
      });
      if (objects.length === 0) return { value: valid, note: 'valid (no object to extend)' };
      const where = r.pick(objects);
      const node = where.reduce<unknown>(
        (n, k) => (n as Record<string | number, unknown>)[k],
        valid,
      ) as Record<string, unknown>;
      const keys = Object.keys(node);
      const known = Object.keys(schema.properties ?? {});
      const key = r.chance(0.2)
        ? r.pick(['__proto__', 'constructor', 'prototype'])
        : misspell(r.pick(keys.length > 0 ? keys : known.length > 0 ? known : ['field']), r);
      return {
        value: setAt(valid, [...where, key], r.pick([1, 'x', null])),
        note: `extra /${[...where, key].join('/')}`,
      };
    }
    case 4:
    case 5:
      return { value: setAt(valid, path, oddValue(r)), note: `odd value at ${at}` };
    case 6:
      return { value: nested(r.pick([63, 64, 65, 66, 300]), r.chance(0.5)), note: 'deep nesting' };
    case 7:
      return { value: r.pick([[], 'x', 1, null, true, [valid], ''] as unknown[]), note: 'another type at /' };
    default:
      return { value: setAt(valid, path, r.pick(ODD_NUMBERS)), note: `edge number at ${at}` };
  }
}

/** A body as text under a media type, or a deliberately wrong pairing of the two. */
export interface Serialized {
  type: string | undefined;
  payload: string | Buffer | undefined;
  note: string;
}

/** JSON text of a value; '' for undefined (no body at all). */
function jsonText(value: unknown): string {
  return value === undefined ? '' : JSON.stringify(value);
}

function formOf(value: unknown): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return jsonText(value);
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(value)) {
    if (Array.isArray(v))
      for (const item of v) params.append(k, typeof item === 'string' ? item : JSON.stringify(item));
    else params.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  }
  return params.toString();
}

function yamlOf(value: unknown): string {
  try {
    return toYaml(value, { aliasDuplicateObjects: false });
  } catch {
    return jsonText(value);
  }
}

export function serialize(value: unknown, types: readonly string[], r: Rng): Serialized {
  const json = jsonText(value);
  const declared = types.length > 0 ? r.pick(types) : 'application/json';
  switch (r.int(12)) {
    case 0:
      return { type: 'text/yaml', payload: yamlOf(value), note: 'as YAML' };
    case 1:
      return { type: declared, payload: json.slice(0, Math.max(0, r.int(json.length))), note: 'truncated' };
    case 2:
      return {
        type: r.pick([
          'text/plain',
          'application/xml',
          'multipart/form-data; boundary=x',
          'image/png',
          '*/*',
          ';',
          'application/json;;',
        ]),
        payload: json,
        note: 'wrong content type',
      };
    case 3:
      return { type: undefined, payload: json, note: 'no content type' };
    case 4:
      return {
        type: 'application/x-www-form-urlencoded',
        payload: r.chance(0.5) ? json : formOf(value),
        note: 'as form',
      };
    case 5:
      return {
        type: 'application/json',
        payload: r.pick([
          '{"a":NaN}',
          '{"a":Infinity}',
          '[1e999]',
          '{"a":1,}',
          "{'a':1}",
          '\uFEFF{}',
          '{"a":"\\ud800"}',
          '{"__proto__":{"x":1}}',
          '{"a":1,"a":2}',
          `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
          'null',
          '"x"',
        ]),
        note: 'odd JSON text',
      };
    case 6:
      return {
        type: 'text/yaml',
        payload: r.pick([
          'a: &x [*x]',
          '!!binary aGk=',
          '<<: {a: 1}',
          'a: .nan\nb: .inf',
          `${'- '.repeat(500)}x`,
          `${'['.repeat(2000)}${']'.repeat(2000)}`,
          '---\na: 1\n---\nb: 2',
          'a: 1\na: 2',
          '? [a]\n: 1',
          '%TAG ! tag:x,2000:\n---\n!a 1',
        ]),
        note: 'odd YAML text',
      };
    case 7:
      return {
        type: declared,
        payload: Buffer.from([0xff, 0xfe, 0x7b, 0x80, 0xc3, 0x28, 0x7d]),
        note: 'invalid UTF-8',
      };
    case 8:
      return { type: `${declared}; charset=utf-16`, payload: json, note: 'odd charset' };
    default:
      return {
        type: declared,
        payload: declared.includes('yaml') ? yamlOf(value) : declared.includes('form') ? formOf(value) : json,
        note: '',
      };
  }
}

/** Path parameter values, valid and not: unknown ids, traversal, NUL, overlong, unicode, prototype keys. */
function pathValue(name: string, path: string, r: Rng, pools: Pools): { value: string; odd: boolean } {
  if (r.chance(0.7)) {
    if (name === 'nodeId') return { value: r.pick(pools.nodeIds), odd: false };
    if (name === 'name') return { value: r.pick([...pools.recordingNames, 'none.bdf']), odd: false };
    if (path.includes('/leds/')) return { value: String(r.int(22)), odd: false };
    if (path.startsWith('/system/jobs') || path.includes('/schedule/'))
      return { value: r.uuid(), odd: false };
    return { value: r.pick(pools.streamIds), odd: false };
  }
  const value = r.pick([
    r.uuid(),
    'not-a-uuid',
    '..',
    '%2e%2e',
    '..%2f..%2fetc%2fpasswd',
    '%00',
    'a%00b',
    'x'.repeat(300),
    'x'.repeat(250),
    '%C3%A9%F0%9F%A7%A0',
    '__proto__',
    'constructor',
    '%25',
    '%ZZ',
    '%20',
    '-1',
    '1e999',
    'NaN',
  ]);
  return { value, odd: true };
}

function queryValue(param: Parameter, r: Rng, pools: Pools): string[] {
  // Waiting for a physical operation to end would hold the run for seconds of device time.
  if (/^(wait|waitUntilComplete|getFinalPosition)$/.test(param.name))
    return [r.pick(['false', '0', 'FALSE', 'maybe'])];
  if (r.chance(0.25)) return [r.pick(ODD_STRINGS.filter((s) => s.length < 1000))];
  if (r.chance(0.1)) return ['O1', 'O1,O2', ''];
  const value = valueFor(param.schema, r, pools, param.name);
  const items = Array.isArray(value) ? value : [value];
  return items.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
}

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload: string | Buffer | undefined;
  /** What was done to the request, for the failure message. */
  note: string;
  operation: Operation;
}

/** One request for `op`: valid parameters and body, then (most often) one mutation of them. */
export function requestFor(op: Operation, r: Rng, pools: Pools): FuzzRequest {
  const notes: string[] = [];
  let url = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const { value, odd } = pathValue(name, op.path, r, pools);
    if (odd) notes.push(`{${name}}=${value.slice(0, 40)}`);
    return odd ? value : encodeURIComponent(value);
  });
  const query = new URLSearchParams();
  for (const param of op.parameters.filter((p) => p.in === 'query')) {
    if (!param.required && r.chance(0.4)) continue;
    for (const v of queryValue(param, r, pools)) query.append(param.name, v);
  }
  if (r.chance(0.05)) {
    query.append(r.pick(['__proto__', 'constructor', 'x', 'channels']), r.pick(['1', '%00', '']));
    notes.push('extra query');
  }
  const search = query.toString();
  if (search !== '') url += `?${search}`;
  const headers: Record<string, string> = {};
  let payload: string | Buffer | undefined;
  if (op.body !== undefined) {
    const types = Object.keys(op.body);
    const schema = op.body[types[0] ?? 'application/json'] ?? {};
    const plan = mutateBody(valueFor(schema, r, pools), schema, r);
    const wire = serialize(plan.value, types, r);
    if (wire.type !== undefined) headers['content-type'] = wire.type;
    payload = wire.payload;
    notes.push(plan.note, wire.note);
  } else if (r.chance(0.1)) {
    headers['content-type'] = r.pick(['application/json', 'text/plain']);
    payload = '{"a":1}';
    notes.push('body on a route that takes none');
  }
  return {
    method: op.method,
    url,
    headers,
    payload,
    note: notes.filter((n) => n !== '').join('; '),
    operation: op,
  };
}

const CATALOG_STATUS_OK = (status: number, documented: readonly string[]): boolean =>
  (status >= 200 && status < 300) ||
  (status >= 400 && status < 500) ||
  ((status === 503 || status === 507) && documented.includes(String(status)));

/**
 * What is wrong with an answer, or undefined: 2xx, or a 4xx (a documented 503/507) carrying the
 * envelope `{success:false, error:{code, message, details?}}` whose code has that status.
 */
export function answerProblem(
  request: Pick<FuzzRequest, 'method' | 'operation'>,
  status: number,
  contentType: string | undefined,
  body: string,
  statuses: Readonly<Record<string, number>>,
): string | undefined {
  if (!CATALOG_STATUS_OK(status, request.operation.responses)) return `status ${status}`;
  if (status < 300 || request.method === 'HEAD') return undefined;
  if (!/^application\/json/.test(contentType ?? '')) return `content type ${contentType ?? 'none'}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'a body that is not JSON';
  }
  const envelope = parsed as {
    success?: unknown;
    error?: { code?: unknown; message?: unknown; details?: unknown };
  };
  if (Object.keys(envelope).sort().join() !== 'error,success' || envelope.success !== false)
    return 'not the envelope';
  const error = envelope.error ?? {};
  if (Object.keys(error).some((k) => !['code', 'message', 'details'].includes(k)))
    return 'extra keys in error';
  if (typeof error.code !== 'string' || statuses[error.code] === undefined)
    return `unknown code ${String(error.code)}`;
  if (statuses[error.code] !== status) return `code ${error.code} with status ${status}`;
  if (typeof error.message !== 'string' || error.message === '') return 'no message';
  if (
    'details' in error &&
    (typeof error.details !== 'object' || error.details === null || Array.isArray(error.details))
  )
    return 'details not an object';
  if (/\n\s+at .+\(.+:\d+:\d+\)/.test(body)) return 'a stack trace';
  return undefined;
}

/** The failing request, as a person would replay it. */
export function describeRequest(request: FuzzRequest): string {
  const payload =
    request.payload === undefined
      ? ''
      : ` body(${request.payload.length}): ${
          typeof request.payload === 'string'
            ? JSON.stringify(request.payload.slice(0, 300))
            : request.payload.toString('hex').slice(0, 300)
        }`;
  const type = request.headers['content-type'] === undefined ? '' : ` [${request.headers['content-type']}]`;
  return `${request.method} ${request.url.slice(0, 300)}${type}${payload} (${request.note})`;
}

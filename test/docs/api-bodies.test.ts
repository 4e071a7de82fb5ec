/**
 * One way to read a request body (docs/architecture.md, api/body.ts): body.ts parses it (JSON,
 * YAML, form fields), the route's TypeBox schema validates it through the one route validator
 * (api/validation.ts, errors rendered by api/error-handler.ts), and the handler reads the typed
 * fields. Checked here on the text of every module of src/api/ (its `*.test.ts` files excepted).
 * Refused:
 *
 * - **Parsing a body by hand**: `JSON.parse`, `parseJsonText`, `parseYamlText`, `parseForm` or the
 *   form plugin outside body.ts (a query parameter that is JSON text is no body: named below).
 * - **A body-field reader of its own**: a function taking the body or its fields as `unknown`, a
 *   record or a `Json` (`function fieldsOf(body: unknown)`), or a cast of `request.body`.
 * - **A validation of its own**: importing `check`, `assertValid`, `compile`, `issuesFromAjv` or
 *   `issuesToError` of platform/schemas/validator.ts in a route (only validation.ts and error-handler.ts).
 * - **A schema left unchecked** (`handlerValidated`) except for the documents a service validates
 *   itself, with the same errors as `headsetd validate` (listed below).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const API = path.join(ROOT, 'src/api');

/** The one module that parses bodies. */
const BODY_MODULE = 'body.ts';
/** Modules that parse JSON text that is not a body, and what they parse. */
const NOT_A_BODY: Readonly<Record<string, string>> = {
  'guides/preparation.ts': 'the query parameter currentImpedance',
};
/** Functions that take a whole body on purpose, and why. */
const WHOLE_BODY: Readonly<Record<string, string>> = {
  'instinct/translate.ts': "the SDK's stream document, translated before the manager validates it",
};
/** The modules that render or run the route validator. */
const VALIDATOR_MODULES = new Set(['validation.ts', 'error-handler.ts']);
/**
 * The bodies a service validates itself (handlerValidated), by module: stream documents and edits
 * (streams/stream-document.ts), the SDK's stream (translated, then the same), the settings' merge
 * patch (validated merged, by the settings schema).
 */
const SERVICE_VALIDATED: Readonly<Record<string, readonly string[]>> = {
  'streams.ts': [
    'StreamCreateSchema',
    'StreamReplaceSchema',
    'NodeListSchema',
    'PipeListSchema',
    'IdListSchema',
  ],
  'instinct/streams.ts': ['StreamBody'],
  'system/config.ts': ['Type.Object({}, { additionalProperties: true })'],
};

function apiModules(dir = API): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return apiModules(file);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [file] : [];
  });
}

const PARSERS = /\b(JSON\.parse|parseJsonText|parseYamlText|parseForm|@fastify\/formbody)\b/;
const FIELD_READER = /function\s+\w+\s*(<[^>]*>)?\(\s*(body|fields)\s*:\s*(unknown|Record<|Json\b)/;
const BODY_CAST = /request\.body\s*(\?\?\s*\{\}\s*\)?\s*)?as\b/;
const VALIDATOR_IMPORT = /import\s*\{([^}]*)\}\s*from\s*'[./]*schemas\/validator\.js'/;
const OWN_VALIDATION = new Set(['check', 'assertValid', 'compile', 'issuesFromAjv', 'issuesToError']);

/** The refusals of the rules above, as `module:line: what`; `module` is relative to src/api. */
export function refusals(modules: Readonly<Record<string, string>>): string[] {
  const found: string[] = [];
  for (const [name, text] of Object.entries(modules)) {
    const lines = text.split('\n');
    lines.forEach((line, index) => {
      const at = `${name}:${index + 1}`;
      if (name !== BODY_MODULE && NOT_A_BODY[name] === undefined && PARSERS.test(line))
        found.push(`${at}: parses a body by hand (${line.trim()})`);
      if (name !== BODY_MODULE && WHOLE_BODY[name] === undefined && FIELD_READER.test(line))
        found.push(`${at}: a body-field reader of its own (${line.trim()})`);
      if (BODY_CAST.test(line)) found.push(`${at}: casts request.body (${line.trim()})`);
    });
    const imported = VALIDATOR_IMPORT.exec(text)?.[1];
    if (imported !== undefined && !VALIDATOR_MODULES.has(name)) {
      const own = imported
        .split(',')
        .map((n) => n.trim())
        .filter((n) => OWN_VALIDATION.has(n));
      if (own.length > 0) found.push(`${name}: validates by hand (${own.join(', ')})`);
    }
    // The argument: a name, or a call with one level of parentheses inside.
    for (const match of text.matchAll(/handlerValidated\(([^()\n]*(?:\([^()\n]*\)[^()\n]*)*)\)/g)) {
      const argument = (match[1] ?? '').trim();
      if (name === 'validation.ts') continue;
      if (!(SERVICE_VALIDATED[name] ?? []).includes(argument))
        found.push(`${name}: handlerValidated(${argument}) leaves a schema unchecked`);
    }
  }
  return found;
}

describe('request bodies in src/api', () => {
  test('are parsed by body.ts and validated by their route schema only', () => {
    const modules = Object.fromEntries(
      apiModules().map((file) => [
        path.relative(API, file).split(path.sep).join('/'),
        readFileSync(file, 'utf8'),
      ]),
    );
    expect(refusals(modules)).toEqual([]);
  });

  test('the rules catch what they describe', () => {
    const probes = {
      'instinct/probe.ts': [
        'function fieldsOf(body: unknown): Json {',
        '  return JSON.parse(String(body)) as Json;',
        '}',
        'const fields = (request.body ?? {}) as Json;',
        '        body: handlerValidated(StreamIdBody),',
      ].join('\n'),
      'system/probe.ts': "import { check, issuesToError } from '../../schemas/validator.js';\n",
      'streams.ts': 'function fields(body: unknown): Record<string, unknown> {\n',
    };
    expect(refusals(probes)).toEqual([
      'instinct/probe.ts:1: a body-field reader of its own (function fieldsOf(body: unknown): Json {)',
      'instinct/probe.ts:2: parses a body by hand (return JSON.parse(String(body)) as Json;)',
      'instinct/probe.ts:4: casts request.body (const fields = (request.body ?? {}) as Json;)',
      'instinct/probe.ts: handlerValidated(StreamIdBody) leaves a schema unchecked',
      'system/probe.ts: validates by hand (check, issuesToError)',
      'streams.ts:1: a body-field reader of its own (function fields(body: unknown): Record<string, unknown> {)',
    ]);
  });
});

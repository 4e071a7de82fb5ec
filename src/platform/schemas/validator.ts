/**
 * Schema validation with ajv in strict mode (docs/architecture.md: one source of truth for
 * schemas), and the one translation of ajv's errors into the error envelope. The API's route
 * validation, the stream validator and the CLI's `validate` all go through `issuesFromAjv`, so the
 * same document gets the same error everywhere.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from 'typebox';
import { closestName } from '../../core/closest-name.js';
import { UUID_PATTERN, uuidRequired } from '../../core/uuid.js';
import { type ErrorCode, HeadsetdError } from '../../core/errors.js';

/** One defect of a document: a JSON pointer into it and a sentence a person can act on. */
export interface Issue {
  path: string;
  message: string;
  /** invalid_request for malformed shapes, validation_failed for out-of-range or inconsistent values. */
  code: ErrorCode;
  /** For an unknown field: the allowed field closest to it ("did you mean"), when one is close. */
  didYouMean?: string;
  /** For a value that must be a UUID: one freshly generated, to copy. */
  example?: string;
}

/** The unknown-field sentence: what is wrong, the closest allowed name, every allowed name. */
export function unknownFieldMessage(
  field: string,
  known: readonly string[],
): { message: string; didYouMean?: string } {
  const didYouMean = closestName(field, known);
  const list = known.join(', ');
  const hint =
    didYouMean !== undefined
      ? `; did you mean '${didYouMean}'? (known fields: ${list})`
      : known.length > 0
        ? `; known fields: ${list}`
        : '';
  return {
    message: `'${field}' is not a known field${hint}`,
    ...(didYouMean === undefined ? {} : { didYouMean }),
  };
}

/** Keywords whose failure means the document is malformed, not merely invalid (docs/api.md §Errors). */
const MALFORMED = new Set(['type', 'required', 'additionalProperties', 'unevaluatedProperties']);

export const AJV_OPTIONS = {
  strict: true,
  allErrors: true,
  removeAdditional: false,
  coerceTypes: false,
  useDefaults: false,
  // Errors carry their parent schema, so an unknown-field message can list the known fields.
  verbose: true,
  // Our schemas are checked against JSON Schema's meta-schema by the tests
  // (`compileAllValidators`, `assertSchemasValid`), not at every start: compiling the meta-schema
  // took ~20 ms of each ajv instance's first compile (docs/performance-areas.md §Start-up). Strict mode
  // (unknown keywords, formats) still applies at compile time.
  validateSchema: false,
} as const;

// ajv-formats ships CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export function createAjv(): Ajv {
  const ajv = new Ajv(AJV_OPTIONS);
  addFormats(ajv);
  return ajv;
}

// Made by the first compile, not at start: the route validators compile on their first request and
// the settings', stream documents' and built-ins' validators are generated at build time
// (prebuilt-validators.ts), so a start and a stream document need no ajv instance of their own (docs/performance-areas.md §Start-up).
let sharedAjv: Ajv | undefined;
let metaChecking: Ajv | undefined;

/**
 * Throws when one of `schemas` is not a valid JSON Schema (the meta-schema check that ajv skips at
 * run time, see AJV_OPTIONS). For the tests.
 */
export function assertSchemasValid(schemas: Iterable<unknown>): void {
  metaChecking ??= new Ajv({ ...AJV_OPTIONS, validateSchema: true });
  for (const schema of schemas) {
    // With `true` ajv throws "schema is invalid: ..." itself; anything but `true` is a failure too.
    if (metaChecking.validateSchema(schema as object, true) !== true) {
      throw new Error(`schema is invalid: ${metaChecking.errorsText()}`);
    }
  }
}
const compiled = new WeakMap<TSchema, ValidateFunction>();
/** Validators generated at build time (prebuilt-validators.ts), made on their schema's first use. */
const prebuilt = new WeakMap<TSchema, () => ValidateFunction>();

export function compile(schema: TSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    const make = prebuilt.get(schema);
    if (make !== undefined) validate = make();
    else {
      sharedAjv ??= createAjv();
      validate = sharedAjv.compile(schema);
    }
    compiled.set(schema, validate);
  }
  return validate;
}

/**
 * Uses the validator `make` returns, ajv's standalone code generated at build time from `schema`
 * with AJV_OPTIONS, as `schema`'s validator instead of compiling it on first use.
 */
export function usePrebuilt(schema: TSchema, make: () => ValidateFunction): void {
  if (!compiled.has(schema)) prebuilt.set(schema, make);
}

function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function describeType(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

function valueAt(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let node: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function issueFromError(error: ErrorObject, root: unknown): Issue {
  const at = error.instancePath;
  const code: ErrorCode = MALFORMED.has(error.keyword) ? 'invalid_request' : 'validation_failed';
  const params = error.params as Record<string, unknown>;
  const parentSchema = error.parentSchema as { properties?: Record<string, unknown> } | undefined;
  switch (error.keyword) {
    case 'required': {
      const missing = String(params.missingProperty);
      return { path: `${at}/${escapePointer(missing)}`, message: `'${missing}' is required`, code };
    }
    case 'additionalProperties': {
      const extra = String(params.additionalProperty);
      const known = Object.keys(parentSchema?.properties ?? {});
      return { path: `${at}/${escapePointer(extra)}`, ...unknownFieldMessage(extra, known), code };
    }
    case 'type':
      return {
        path: at,
        message: `must be ${String(params.type)
          .replace('integer', 'an integer')
          .replace(/^(number|string|boolean|object|array)$/, (t) =>
            t === 'array' || t === 'object' ? `an ${t}` : `a ${t}`,
          )}, got ${describeType(valueAt(root, at))}`,
        code,
      };
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ');
      return {
        path: at,
        message: `must be one of ${allowed}, got ${JSON.stringify(valueAt(root, at))}`,
        code,
      };
    }
    case 'pattern': {
      if (params.pattern === UUID_PATTERN) {
        const { message, example } = uuidRequired(valueAt(root, at));
        return { path: at, message, code, example };
      }
      // A pattern means nothing to a person; the schema's description says what is expected.
      const described = (error.parentSchema as { description?: unknown } | undefined)?.description;
      const hint = typeof described === 'string' ? `: ${described.replace(/\.$/, '')}` : '';
      return {
        path: at,
        message: `${JSON.stringify(valueAt(root, at))} does not have the required form${hint}`,
        code,
      };
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return {
        path: at,
        message: `must be ${String(params.comparison)} ${String(params.limit)}, got ${JSON.stringify(valueAt(root, at))}`,
        code,
      };
    default:
      return { path: at, message: error.message ?? `fails ${error.keyword}`, code };
  }
}

/** Translates ajv errors, prefixing every pointer with `basePath` (e.g. `/nodes/2/config`). */
export function issuesFromAjv(errors: readonly ErrorObject[], root: unknown, basePath = ''): Issue[] {
  const issues = oneRangeErrorPerValue(errors).map((e) => issueFromError(e, root));
  return issues.map((i) => ({ ...i, path: basePath + i.path }));
}

const RANGE = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']);

/**
 * A value out of range is one fault, however many bounds of its schema it breaks (`sampleRate: 0`
 * broke both `> 0` and `>= 1`, and was answered twice): the first bound broken stands for all.
 */
function oneRangeErrorPerValue(errors: readonly ErrorObject[]): ErrorObject[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    if (!RANGE.has(e.keyword)) return true;
    if (seen.has(e.instancePath)) return false;
    seen.add(e.instancePath);
    return true;
  });
}

/** Validates `value` against `schema`; returns the issues (empty when valid). */
export function check(schema: TSchema, value: unknown, basePath = ''): Issue[] {
  const validate = compile(schema);
  if (validate(value)) return [];
  return issuesFromAjv(validate.errors ?? [], value, basePath);
}

/**
 * One error for a list of issues: the first malformed one leads (a malformed document is a 400
 * whatever else is wrong), then the first with a specific code (403, unknown executable), then the
 * first; `details.errors` lists them all.
 */
export function issuesToError(issues: readonly Issue[], subject = 'The request'): HeadsetdError {
  // A misspelt field leads: its "did you mean" also explains the required field it leaves missing.
  const first =
    issues.find((i) => i.code === 'invalid_request' && i.didYouMean !== undefined) ??
    issues.find((i) => i.code === 'invalid_request') ??
    issues.find((i) => i.code !== 'validation_failed') ??
    issues[0];
  if (first === undefined) return new HeadsetdError('internal_error', 'Validation failed without a reason.');
  const where = first.path === '' ? subject : `${subject} at ${first.path}`;
  const more =
    issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})` : '';
  return new HeadsetdError(first.code, `${where}: ${first.message}${more}.`, {
    path: first.path,
    ...(first.didYouMean === undefined ? {} : { didYouMean: first.didYouMean }),
    ...(first.example === undefined ? {} : { example: first.example }),
    errors: issues.map((i) => ({ path: i.path, message: i.message })),
  });
}

/** Throws the envelope error when `value` does not match `schema`. */
export function assertValid(schema: TSchema, value: unknown, subject?: string): void {
  const issues = check(schema, value);
  if (issues.length > 0) throw issuesToError(issues, subject);
}

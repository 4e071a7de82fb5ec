/**
 * Route validation. Bodies of JSON routes are validated by ajv in strict mode (no coercion, unknown
 * fields refused); query strings and path parameters are coerced from text, since they are text.
 * Stream documents are validated in the handler by streams/stream-document.ts instead (the same code
 * `headsetd validate` runs), so their schemas are registered here only to be documented.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { TSchema } from 'typebox';
import { AJV_OPTIONS, assertSchemasValid, createAjv } from '../platform/schemas/validator.js';

const documentedOnly = new WeakSet<object>();

/** Marks a body schema as validated by the handler: documented in OpenAPI, not checked twice. */
export function handlerValidated<T extends TSchema>(schema: T): T {
  const copy = { ...schema };
  documentedOnly.add(copy);
  return copy;
}

/** A body schema every field of which is optional: `{}` is a valid body for it. */
function acceptsEmptyObject(schema: unknown): boolean {
  if (schema === null || typeof schema !== 'object' || documentedOnly.has(schema)) return false;
  const { type, required } = schema as { type?: unknown; required?: unknown };
  return type === 'object' && (required === undefined || (Array.isArray(required) && required.length === 0));
}

/**
 * A route's validator, compiled by its first request rather than at start-up: compiling every
 * route's schemas took about 0.2 s of a 0.6 s start (docs/performance.md), and most routes are
 * never called in a session. Fastify reads `errors` off the function after a false answer.
 */
function compiledOnFirstUse(
  schema: unknown,
  compile: () => ValidateFunction,
  pending: (() => void)[],
): ((data: unknown) => boolean) & {
  errors: ErrorObject[] | null;
} {
  let validate: ValidateFunction | undefined;
  pending.push(() => {
    assertSchemasValid([schema]);
    validate ??= compile();
  });
  const check = (data: unknown): boolean => {
    validate ??= compile();
    const valid = validate(data);
    check.errors = validate.errors ?? null;
    return valid;
  };
  check.errors = null as ErrorObject[] | null;
  return check;
}

const pendingByApp = new WeakMap<FastifyInstance, (() => void)[]>();

/**
 * Compiles every route's validator now, each schema checked against JSON Schema's meta-schema
 * first; throws on the first schema ajv refuses. The tests call it so that a schema error in a
 * route nobody called still fails the build.
 */
export function compileAllValidators(app: FastifyInstance): void {
  for (const compile of pendingByApp.get(app) ?? []) compile();
}

export function installValidation(app: FastifyInstance): void {
  const pending: (() => void)[] = [];
  pendingByApp.set(app, pending);
  // A POST whose body fields are all optional may be sent without a body (`curl -X POST .../stop`):
  // that means "no options", so the route sees `{}` rather than a refusal for a missing object.
  app.addHook('onRoute', (route) => {
    if (!acceptsEmptyObject(route.schema?.body)) return;
    const own = route.preValidation;
    const fill = (request: FastifyRequest, _reply: FastifyReply, done: () => void): void => {
      request.body ??= {};
      done();
    };
    route.preValidation = own === undefined ? fill : [fill, ...(Array.isArray(own) ? own : [own])];
  });
  // The two ajv instances are made by the first validator compiled (a request's), not at start.
  let strict: Ajv | undefined;
  let coercing: Ajv | undefined;
  const ajvFor = (httpPart: string | undefined): Ajv =>
    httpPart === 'body'
      ? (strict ??= createAjv())
      : (coercing ??= new Ajv({ ...AJV_OPTIONS, coerceTypes: 'array' }));
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (httpPart === 'body' && documentedOnly.has(schema)) return () => true;
    return compiledOnFirstUse(schema, () => ajvFor(httpPart).compile(schema), pending);
  });
  // Answers are plain JSON.stringify: open objects (meta, config, node info) are never trimmed.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
}

/**
 * Route validation. Bodies of JSON routes are validated by ajv in strict mode (no coercion, unknown
 * fields refused); query strings and path parameters are coerced from text, since they are text.
 * Stream documents are validated in the handler by streams/validate.ts instead (the same code
 * `headsetd validate` runs), so their schemas are registered here only to be documented.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Ajv } from 'ajv';
import type { TSchema } from 'typebox';
import { AJV_OPTIONS, createAjv } from '../schemas/validator.js';

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

export function installValidation(app: FastifyInstance): void {
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
  const strict = createAjv();
  const coercing = new Ajv({ ...AJV_OPTIONS, coerceTypes: 'array' });
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (httpPart === 'body' && documentedOnly.has(schema)) return () => true;
    const ajv = httpPart === 'body' ? strict : coercing;
    return ajv.compile(schema);
  });
  // Answers are plain JSON.stringify: open objects (meta, config, node info) are never trimmed.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
}

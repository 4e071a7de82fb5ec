/**
 * Route validation. Bodies of JSON routes are validated by ajv in strict mode (no coercion, unknown
 * fields refused); query strings and path parameters are coerced from text, since they are text.
 * Stream documents are validated in the handler by streams/validate.ts instead (the same code
 * `headsetd validate` runs), so their schemas are registered here only to be documented.
 */
import type { FastifyInstance } from 'fastify';
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

export function installValidation(app: FastifyInstance): void {
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

/**
 * The validators generated at build time. In the service's bundle (scripts/bundle.mjs) this module
 * is replaced by ajv's standalone code for every schema of service/prebuilt-schemas.ts (the
 * settings, the stream documents, each built-in's configuration), compiled with the same options
 * as at run time (AJV_OPTIONS), so that neither a start nor a service's first stream runs ajv's
 * code generator (15–20 ms for the settings, 80–220 ms for a first stream document:
 * docs/performance.md §Start-up and a service's first stream). Each validator's code is evaluated
 * on first use. Here (tsc's output, the tests) it is undefined and each schema is compiled on
 * first use.
 */
import type { ValidateFunction } from 'ajv';

/** A validator generated at build time, by the key of its schema; made (evaluated) on first use. */
export interface PrebuiltValidator {
  /** `key:sha256` of the schema's JSON at build time (the tests compare it with the sources'). */
  fingerprint: string;
  make: () => ValidateFunction;
}

export const prebuiltValidators: Readonly<Record<string, PrebuiltValidator>> | undefined = undefined;

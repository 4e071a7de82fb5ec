/**
 * The schemas whose validators the build generates as ajv's standalone code
 * (scripts/bundle.mjs, into platform/schemas/prebuilt-validators.ts), by a key each: what a start
 * checks (the settings) and what a service's first stream document reaches (the document, each
 * built-in's configuration, an external executable's). The build reads this table from tsc's
 * output of the same sources as the bundle, so the generated code is never older than the schema;
 * test/e2e/prebuilt-validators.test.ts compares each key's fingerprint in the bundle with the
 * sources' and the answers with the run-time validator's.
 */
import type { TSchema } from 'typebox';
import { DeviceConfigSchema } from '../device/settings/config.js';
import { prebuiltValidators } from '../platform/schemas/prebuilt-validators.js';
import { StreamCreateSchema, StreamReplaceSchema } from '../platform/schemas/stream.js';
import { usePrebuilt } from '../platform/schemas/validator.js';
import { BUILTINS } from '../streams/executables/builtins.js';
import { ExternalCommonConfig } from '../streams/graph-document.js';
import { SettingsSchema } from './config.js';

export function prebuiltSchemas(): Record<string, TSchema> {
  const schemas: Record<string, TSchema> = {
    settings: SettingsSchema,
    'stream-create': StreamCreateSchema,
    'stream-replace': StreamReplaceSchema,
    'external-config': ExternalCommonConfig,
    'device-config': DeviceConfigSchema,
  };
  for (const builtin of BUILTINS) schemas[`builtin:${builtin.name}`] = builtin.configSchema;
  return schemas;
}

/**
 * Hands the validators the build generated to the validator (a bundle's service command calls it
 * before it checks anything); without them (tsc's output, the tests) each schema is compiled on
 * first use. A key the bundle lacks is compiled on first use too: the answer is the same either way.
 */
export function usePrebuiltValidators(): void {
  if (prebuiltValidators === undefined) return;
  for (const [key, schema] of Object.entries(prebuiltSchemas())) {
    const prebuilt = prebuiltValidators[key];
    if (prebuilt !== undefined) usePrebuilt(schema, prebuilt.make);
  }
}

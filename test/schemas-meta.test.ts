/**
 * The schemas the service compiles at run time are valid JSON Schema. ajv no longer checks them
 * against the meta-schema when it compiles them (that took ~20 ms of every start,
 * docs/performance.md §Start-up), so this test does, for the schemas compiled outside the routes
 * (the routes' own are checked by compileAllValidators, test/api/openapi.test.ts).
 */
import { Type } from 'typebox';
import { expect, test } from 'vitest';
import { SettingsSchema } from '../src/service/config.js';
import { DebugBody } from '../src/api/debug-command.js';
import { BUILTINS } from '../src/streams/executables/builtins.js';
import { assertSchemasValid, check } from '../src/platform/schemas/validator.js';
import { DEFAULT_DEVICE_CONFIG, DeviceConfigSchema, effectiveConfig } from '../src/device/settings/config.js';

test('the settings, device configuration, debug body and built-in configs are valid JSON Schema', () => {
  const schemas = [SettingsSchema, DeviceConfigSchema, DebugBody, ...BUILTINS.map((b) => b.configSchema)];
  expect(() => {
    assertSchemasValid(schemas);
  }).not.toThrow();
});

test('a schema that is not valid JSON Schema is still refused by the check the tests run', () => {
  expect(() => {
    assertSchemasValid([{ type: 'strnig' }]);
  }).toThrow(/schema is invalid/);
  // ...while the run-time validator compiles only what strict mode refuses (unknown keywords).
  expect(() => check(Type.Unsafe<unknown>({ typo: 1 }), {})).toThrow(/unknown keyword/);
});

test('the default device configuration, applied unchecked when nothing is stored, is what the check would answer', () => {
  expect(effectiveConfig({})).toEqual(DEFAULT_DEVICE_CONFIG);
});

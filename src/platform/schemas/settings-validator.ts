/**
 * The settings' validator generated at build time. In the service's bundle (scripts/bundle.mjs)
 * this module is replaced by ajv's standalone code for `SettingsSchema`, compiled with the same
 * options as at run time (AJV_OPTIONS), so a start checks its settings without running ajv's code
 * generator (15–20 ms of a start: docs/performance-areas.md §Start-up). Here (tsc's output, the tests) it
 * is undefined and the schema is compiled on first use.
 */
import type { ValidateFunction } from 'ajv';

export const validate: ValidateFunction | undefined = undefined;

/**
 * `key:sha256` of a schema's JSON: the build writes it beside each validator it generates
 * (bundle.mjs), and test/e2e/prebuilt-validators.test.ts finds it in the bundle for each schema of
 * the sources, so a bundle generated from other schemas than the sources' is told apart.
 */
import { createHash } from 'node:crypto';

export function schemaFingerprint(key, schema) {
  return `${key}:${createHash('sha256').update(JSON.stringify(schema)).digest('hex').slice(0, 16)}`;
}

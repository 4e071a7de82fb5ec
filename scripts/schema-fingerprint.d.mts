/** Types of schema-fingerprint.mjs, for the TypeScript tests. */
export function schemaFingerprint(key: string, schema: unknown): string;

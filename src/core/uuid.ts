/**
 * Stream ids are UUIDs in their textual form (docs/api.md §Validation). One pattern for the schema,
 * the stream document and the path lookups, and one sentence for a value that is not one: it says
 * what the form is and offers a freshly generated id to copy.
 */
import { randomUUID } from 'node:crypto';

export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

const UUID = new RegExp(UUID_PATTERN);

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/**
 * "a stream id must be a UUID … for example '…'", with a new example each time (so that it can be
 * used as it is); `message` puts the value sent first.
 */
export function uuidRequired(value: unknown): { message: string; rule: string; example: string } {
  const example = randomUUID();
  const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 64)) : JSON.stringify(value);
  const rule = `a stream id must be a UUID (8-4-4-4-12 hexadecimal digits, any case), for example '${example}' (freshly generated; in a shell: uuidgen)`;
  return { message: `${shown} is not a UUID: ${rule}`, rule, example };
}

/**
 * JSON Merge Patch (RFC 7396): objects merge member by member, `null` removes a member, anything
 * else (arrays included) replaces the target's value.
 */

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** RFC 7396 §2 MergePatch(target, patch); `target` is not modified. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return patch;
  const result = new Map<string, unknown>(isJsonObject(target) ? Object.entries(target) : []);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) result.delete(key);
    else result.set(key, mergePatch(result.get(key), value));
  }
  return Object.fromEntries(result);
}

/** Deep merge of `overrides` onto `defaults` (objects merge; other values replace). */
export function withDefaults(defaults: JsonObject, overrides: JsonObject): JsonObject {
  const result: JsonObject = { ...defaults };
  for (const [key, value] of Object.entries(overrides)) {
    const base = result[key];
    result[key] = isJsonObject(base) && isJsonObject(value) ? withDefaults(base, value) : value;
  }
  return result;
}

/** Removes empty objects left behind by deletions, so that stored overrides stay minimal. */
export function pruneEmpty(value: JsonObject): JsonObject {
  const result: JsonObject = {};
  for (const [key, member] of Object.entries(value)) {
    if (isJsonObject(member)) {
      const pruned = pruneEmpty(member);
      if (Object.keys(pruned).length > 0) result[key] = pruned;
    } else {
      result[key] = member;
    }
  }
  return result;
}

/**
 * Hooks added to single routes as they are made (Fastify's `onRoute`), rather than to every
 * request of a scope: the routes that do not need a hook (the polled GETs) pass none. Used for
 * the write epoch of polled answers, the store's flush before a writing route answers, and the
 * refusal of routes that need a part the device lacks.
 */

/** `route.onSend` (or another route-level hook list) with `hook` added after the route's own. */
export function appendHook<T>(own: T | T[] | undefined, hook: NoInfer<T>): T | T[] {
  if (own === undefined) return hook;
  return [...(Array.isArray(own) ? own : [own]), hook];
}

/**
 * Waiting a bounded time for a transition: an answer to a signal returns when the transition ended
 * or when the time is up, whichever comes first (docs/api.md §Lifecycle), and the stream's state
 * then says where it stands.
 */

/** `promise`'s outcome when it settled within `ms`, else `{done: false}`; the timer never outlives the wait. */
export async function settleWithin<T>(
  promise: Promise<T>,
  ms: number,
): Promise<{ done: true; value: T } | { done: false }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<{ done: false }>((resolve) => {
    timer = setTimeout(() => {
      resolve({ done: false });
    }, ms);
  });
  try {
    return await Promise.race([promise.then((value) => ({ done: true as const, value })), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** `promise`'s value, or undefined when it has not settled within `ms`. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  const result = await settleWithin(promise, ms);
  return result.done ? result.value : undefined;
}

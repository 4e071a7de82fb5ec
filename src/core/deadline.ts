/**
 * One way to wait for something at most so long: `settleWithin` races a promise against a timer
 * and clears the timer as soon as either wins, so no waiting outlives its answer. A rejection of
 * the promise within the time passes through unchanged; after the time it is left to its owner.
 */

/** What a bounded wait ended with: the promise's value, or `done: false` when the time ran out. */
export type Settled<T> = { done: true; value: T } | { done: false };

export async function settleWithin<T>(promise: Promise<T>, ms: number): Promise<Settled<T>> {
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

/**
 * The one poll helper of the tests: `eventually` calls `check` (sync or async) until it answers a
 * value other than undefined or false, and resolves with that value. A check that throws is tried
 * again; after `timeoutMs` the helper fails with `what` and the last error thrown. The time is a
 * deadline for a stuck test, never a duration asserted. Wait for an event where there is one.
 */

/** How often a check runs, ms. */
const POLL_MS = 20;

export async function eventually<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * The deadline of a test bound by CPU alone (parsing every module, simulating minutes of a device
 * on fake time): seconds on a quiet machine, past the default 30 s where the cores are busy (CI
 * with coverage, beside other runs). A deadline for a stuck test, never a duration asserted.
 */
export const CPU_BOUND_TIMEOUT_MS = 180_000;

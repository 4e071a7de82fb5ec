/**
 * A lifecycle signal answered within a bound: the maker's SDK gives `start` a 1 s timeout, so its
 * paths answer once the transition ended or the bound passed, whichever is first. A transition
 * still under way then goes on; if it fails later, the failure is handed to `onLateFailure` (the
 * stream's status and the events show it too).
 */
import { settleWithin } from '../core/deadline.js';
import type { StreamSignal } from '../core/stream-model.js';
import type { StreamManager } from './manager.js';

export type SignalProgress = 'done' | 'under_way';

export async function signalWithin(
  manager: Pick<StreamManager, 'signal'>,
  id: string,
  name: StreamSignal,
  waitMs: number,
  onLateFailure: (failure: Error) => void,
): Promise<SignalProgress> {
  const { outcome } = manager.signal(id, name);
  const result = await settleWithin(outcome, waitMs);
  if (result.done) {
    if (result.value !== undefined) throw result.value;
    return 'done';
  }
  void outcome.then(
    (failure) => {
      if (failure !== undefined) onLateFailure(failure);
    },
    (error: unknown) => {
      onLateFailure(error instanceof Error ? error : new Error(String(error)));
    },
  );
  return 'under_way';
}

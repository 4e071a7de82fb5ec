/**
 * A lifecycle signal answered within a bound: both faces of the API answer once the transition
 * ended or the bound passed, whichever is first (api/stream-signal.ts). A transition
 * still under way then goes on; if it fails later, the failure is handed to `onLateFailure` (the
 * stream's status and the events show it too). An edit that starts nodes (`StartingEdit.started`)
 * is answered the same way.
 */
import { settleWithin } from '../core/deadline.js';
import type { StreamSignal } from '../core/stream-model.js';
import type { StreamManager } from './manager.js';

export type SignalProgress = 'done' | 'under_way';

export function signalWithin(
  manager: Pick<StreamManager, 'signal'>,
  id: string,
  name: StreamSignal,
  waitMs: number,
  onLateFailure: (failure: Error) => void,
): Promise<SignalProgress> {
  return outcomeWithin(manager.signal(id, name).outcome, waitMs, onLateFailure);
}

/**
 * Waits at most `waitMs` for `outcome`: 'done' when it ended well, its failure thrown when it
 * failed by then, else 'under_way', and a later failure handed to `onLateFailure`.
 */
export async function outcomeWithin(
  outcome: Promise<Error | undefined>,
  waitMs: number,
  onLateFailure: (failure: Error) => void,
): Promise<SignalProgress> {
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

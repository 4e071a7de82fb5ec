/**
 * The one policy of a stream signal (start, stop, pause, resume, reconcile) on both faces of the
 * API, the reference paths (`POST /stream/streams/{id}/signal`) and the maker's SDK paths
 * (`POST /streams/stream/start`, ...; docs/api.md §Lifecycle, docs/instinct-sdk.md): the answer
 * comes when the transition ended or after {@link SIGNAL_WAIT_MS}, whichever is first. A
 * transition ended by then is answered as it ended (a failure as its error); one still under way
 * is answered as accepted, and if it fails later the failure is announced once, the same way
 * whichever path sent the signal: a `stream_failed` event ("Stream … failed to start after its
 * answer: …", through the {@link LateFailureSink} the composer hands both faces) and a warning in
 * the log, besides the stream's state and error in its status.
 */
import type { FastifyRequest } from 'fastify';
import { STREAM_SIGNALS, type StreamSignal } from '../core/stream-model.js';
import { HeadsetdError } from '../core/errors.js';
import { logFailure } from './error-handler.js';
import type { StreamManager } from '../streams/manager.js';
import { type SignalProgress, signalWithin } from '../streams/signal-within.js';

/**
 * How long a stream signal waits for its transition, ms. Half the maker's SDK's 1 s timeout for
 * the call, so that the answer reaches it in time on a busy machine; five times what starting a
 * stream of built-ins takes when a worker must boot first (about 0.1 s), so that a read right
 * after `start` shows the stream running, as clients of the reference paths expect.
 */
export const SIGNAL_WAIT_MS = 500;

/** Where a transition that fails after its answer is announced (the service's event hub). */
export type LateFailureSink = (streamId: string, message: string) => void;

/** How a signal is answered: the wait and where late failures go (both faces get the same). */
export interface SignalPolicy {
  readonly waitMs: number;
  readonly onLateFailure: LateFailureSink;
}

export function signalPolicy(
  options: { signalWaitMs?: number | undefined; onLateFailure?: LateFailureSink | undefined } = {},
): SignalPolicy {
  return {
    waitMs: options.signalWaitMs ?? SIGNAL_WAIT_MS,
    onLateFailure: options.onLateFailure ?? (() => undefined),
  };
}

/**
 * The stream signal a body names, refused with 400 and the allowed names otherwise (an unknown
 * signal name is malformed: docs/api.md §Lifecycle). `path` points at the field; `hint` is added
 * to the message.
 */
export function streamSignalNamed(name: string, path: string, hint = ''): StreamSignal {
  if (STREAM_SIGNALS.includes(name as StreamSignal)) return name as StreamSignal;
  throw new HeadsetdError(
    'invalid_request',
    `'${name}' is not a stream signal; use one of ${STREAM_SIGNALS.join(', ')}${hint}.`,
    { path, allowed: [...STREAM_SIGNALS] },
  );
}

/** Sends `name` to stream `id` and waits as {@link SIGNAL_WAIT_MS} says; a failure by then is thrown. */
export function sendSignal(
  manager: Pick<StreamManager, 'signal'>,
  policy: SignalPolicy,
  request: FastifyRequest,
  id: string,
  name: StreamSignal,
): Promise<SignalProgress> {
  return signalWithin(manager, id, name, policy.waitMs, (failure) => {
    logFailure(request.log, failure, `stream ${id}: ${name} failed after its answer`, 'warn');
    policy.onLateFailure(id, `Stream ${id} failed to ${name} after its answer: ${failure.message}`);
  });
}

/**
 * The stream state machine as data: which signals act from which state, which are harmless
 * repeats (so clients may retry), which are refused with 409, and the run state each signal asks
 * for (stored before the stream's state changes, so that a restart of the service resumes it).
 */
import type { StreamSignal, StreamState } from '../core/stream-model.js';
import type { DesiredState } from './store.js';

/**
 * States from which each signal starts a transition. `stop` acts from `error` too: a stream that
 * failed is then wanted stopped, and is no longer retried at every start of the service.
 */
const ACTS_FROM: Record<StreamSignal, readonly StreamState[]> = {
  start: ['created', 'stopped', 'error'],
  stop: ['running', 'paused', 'starting', 'pausing', 'error'],
  pause: ['running'],
  resume: ['paused'],
  reconcile: ['created', 'running', 'paused', 'stopped', 'error'],
};

/** States in which a signal asks for what already is (or is already under way): success, no change. */
const ALREADY_IN: Record<StreamSignal, readonly StreamState[]> = {
  start: ['running', 'starting'],
  stop: ['stopped', 'stopping'],
  pause: ['paused', 'pausing'],
  resume: ['running'],
  // A start under way already brings the stream to its definition; restarting it midway would only
  // throw that work away (a client reconciling right after its start, as the maker's SDK may).
  reconcile: ['starting'],
};

/** The run state a signal that acts asks for: stored first, then the transition starts. */
export const DESIRED_AFTER: Record<StreamSignal, DesiredState> = {
  start: 'running',
  stop: 'stopped',
  pause: 'paused',
  resume: 'running',
  reconcile: 'running',
};

export type SignalPlan = { kind: 'act' } | { kind: 'noop' } | { kind: 'invalid'; allowed: StreamSignal[] };

export const TRANSITIONAL_STATES: readonly StreamState[] = ['starting', 'pausing', 'stopping'];

/** Signals a client may send in `state` (acting or harmless). */
export function allowedSignals(state: StreamState): StreamSignal[] {
  return (Object.keys(ACTS_FROM) as StreamSignal[]).filter(
    (s) => ACTS_FROM[s].includes(state) || ALREADY_IN[s].includes(state),
  );
}

export function planSignal(state: StreamState, signal: StreamSignal): SignalPlan {
  if (ALREADY_IN[signal].includes(state)) return { kind: 'noop' };
  if (ACTS_FROM[signal].includes(state)) return { kind: 'act' };
  return { kind: 'invalid', allowed: allowedSignals(state) };
}

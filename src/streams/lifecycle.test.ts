/**
 * The lifecycle table of docs/api.md §Lifecycle, checked exhaustively: every state × every signal
 * against an expectation written out here, row by row, from that table.
 */
import { describe, expect, it } from 'vitest';
import { allowedSignals, planSignal, TRANSITIONAL_STATES } from './lifecycle.js';
import { STREAM_SIGNALS, STREAM_STATES, type StreamSignal, type StreamState } from '../core/stream-model.js';

/** 'act' = starts a transition; 'noop' = already so (idempotent success); '409' = invalid_state. */
const TABLE: Record<StreamState, Record<StreamSignal, 'act' | 'noop' | '409'>> = {
  created: { start: 'act', stop: '409', pause: '409', resume: '409', reconcile: 'act' },
  starting: { start: 'noop', stop: 'act', pause: '409', resume: '409', reconcile: 'noop' },
  running: { start: 'noop', stop: 'act', pause: 'act', resume: 'noop', reconcile: 'act' },
  pausing: { start: '409', stop: 'act', pause: 'noop', resume: '409', reconcile: '409' },
  paused: { start: '409', stop: 'act', pause: 'noop', resume: 'act', reconcile: 'act' },
  stopping: { start: '409', stop: 'noop', pause: '409', resume: '409', reconcile: '409' },
  stopped: { start: 'act', stop: 'noop', pause: '409', resume: '409', reconcile: 'act' },
  // stop acts from error: the failed stream is then wanted stopped (it was retried at every restart).
  error: { start: 'act', stop: 'act', pause: '409', resume: '409', reconcile: 'act' },
};

describe('planSignal', () => {
  const cases = STREAM_STATES.flatMap((state) => STREAM_SIGNALS.map((signal) => [state, signal] as const));

  it.each(cases)('%s + %s', (state, signal) => {
    const expected = TABLE[state][signal];
    const plan = planSignal(state, signal);
    if (expected === '409') {
      expect(plan).toEqual({ kind: 'invalid', allowed: allowedSignals(state) });
    } else {
      expect(plan).toEqual({ kind: expected });
    }
  });

  it('covers every state and signal of the model', () => {
    expect(Object.keys(TABLE).sort()).toEqual([...STREAM_STATES].sort());
    expect(STREAM_STATES).toHaveLength(8);
    expect(STREAM_SIGNALS).toEqual(['start', 'stop', 'pause', 'resume', 'reconcile']);
  });
});

describe('allowedSignals', () => {
  it.each(STREAM_STATES.map((s) => [s]))(
    '%s: the signals that act or are harmless there, in signal order',
    (state) => {
      const expected = STREAM_SIGNALS.filter((signal) => TABLE[state][signal] !== '409');
      expect(allowedSignals(state)).toEqual(expected);
    },
  );

  it('no state refuses everything, so a client always has a way on', () => {
    for (const state of STREAM_STATES) expect(allowedSignals(state).length).toBeGreaterThan(0);
  });
});

describe('TRANSITIONAL_STATES', () => {
  it('are the three -ing states; reconcile is refused while pausing or stopping and a harmless repeat while starting', () => {
    expect([...TRANSITIONAL_STATES].sort()).toEqual(['pausing', 'starting', 'stopping']);
    expect(planSignal('pausing', 'reconcile').kind).toBe('invalid');
    expect(planSignal('stopping', 'reconcile').kind).toBe('invalid');
    expect(planSignal('starting', 'reconcile').kind).toBe('noop');
  });
});

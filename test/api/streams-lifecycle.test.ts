/**
 * The stream lifecycle through the API (docs/api.md §Lifecycle): every state × every signal,
 * with the expected outcome written out here independently of src/streams/lifecycle.ts; transitional
 * states held open with FakeRuntime gates; start failures; the signal body forms.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ControlPlane, controlPlane } from '../support/control-plane.js';
import {
  chainStream,
  expectError,
  form,
  json,
  ok,
  OTHER_ID,
  PREFIXES,
  readStream,
  signal,
  stateOf,
  text,
} from './helpers.js';

const ID = OTHER_ID;
type State = 'created' | 'starting' | 'running' | 'pausing' | 'paused' | 'stopping' | 'stopped' | 'error';
type Signal = 'start' | 'stop' | 'pause' | 'resume' | 'reconcile';
const STATES: State[] = [
  'created',
  'starting',
  'running',
  'pausing',
  'paused',
  'stopping',
  'stopped',
  'error',
];
const SIGNALS: Signal[] = ['start', 'stop', 'pause', 'resume', 'reconcile'];

/** The lifecycle table of docs/api.md: from which states a signal acts, and where it leads. */
const ACTS: Record<Signal, State[]> = {
  start: ['created', 'stopped', 'error'],
  stop: ['running', 'paused', 'starting', 'pausing', 'error'],
  pause: ['running'],
  resume: ['paused'],
  reconcile: ['created', 'running', 'paused', 'stopped', 'error'],
};
/** Repeats of what is already so (or already under way): success, nothing changes. */
const ALREADY: Record<Signal, State[]> = {
  start: ['running', 'starting'],
  stop: ['stopped', 'stopping'],
  pause: ['paused', 'pausing'],
  resume: ['running'],
  reconcile: ['starting'],
};
/** The transitional state right after an acting signal, and the state once it completes. */
const LEADS_TO: Record<Signal, { now: State; then: State }> = {
  start: { now: 'starting', then: 'running' },
  stop: { now: 'stopping', then: 'stopped' },
  pause: { now: 'pausing', then: 'paused' },
  resume: { now: 'running', then: 'running' },
  reconcile: { now: 'starting', then: 'running' },
};
const GATE_OF: Record<Signal, 'start' | 'stop' | 'pause' | undefined> = {
  start: 'start',
  stop: 'stop',
  pause: 'pause',
  resume: undefined,
  reconcile: 'start',
};

function allowedIn(state: State): Signal[] {
  return SIGNALS.filter((s) => ACTS[s].includes(state) || ALREADY[s].includes(state));
}

let cp: ControlPlane;
const releases: (() => void)[] = [];
beforeEach(async () => {
  cp = await controlPlane();
});
afterEach(async () => {
  for (const release of releases.splice(0)) release();
  await cp.close();
});

async function settle(): Promise<void> {
  await cp.manager.settle();
}

/** Brings the stream into `state` through the API; transitional states stay held open. */
async function bringTo(state: State): Promise<void> {
  ok(await json(cp, 'POST', '/stream/streams', chainStream(ID)));
  const steps: Record<State, () => Promise<void>> = {
    created: async () => undefined,
    starting: async () => {
      releases.push(cp.runtime.hold('start'));
      ok(await signal(cp, ID, 'start'));
    },
    running: async () => {
      ok(await signal(cp, ID, 'start'));
      await settle();
    },
    pausing: async () => {
      await steps.running();
      releases.push(cp.runtime.hold('pause'));
      ok(await signal(cp, ID, 'pause'));
    },
    paused: async () => {
      await steps.running();
      ok(await signal(cp, ID, 'pause'));
      await settle();
    },
    stopping: async () => {
      await steps.running();
      releases.push(cp.runtime.hold('stop'));
      ok(await signal(cp, ID, 'stop'));
    },
    stopped: async () => {
      await steps.running();
      ok(await signal(cp, ID, 'stop'));
      await settle();
    },
    error: async () => {
      cp.runtime.failStart.set('filt', 'the filter cannot start');
      expectError(await signal(cp, ID, 'start'), 422, 'validation_failed');
      await settle();
      cp.runtime.failStart.clear();
    },
  };
  await steps[state]();
  expect(await stateOf(cp, ID)).toBe(state);
}

const CASES = STATES.flatMap((state) => SIGNALS.map((sig) => [state, sig] as const));

describe('the lifecycle table, every state × every signal', () => {
  it.each(CASES)('from %s, signal %s', async (state, sig) => {
    await bringTo(state);
    const before = cp.runtime.calls.length;
    if (ACTS[sig].includes(state)) {
      const gate = GATE_OF[sig];
      const release = gate === undefined ? undefined : cp.runtime.hold(gate);
      if (release !== undefined) releases.push(release);
      expect(ok(await signal(cp, ID, sig))).toEqual({ id: ID, success: true });
      // The call returns once the transition is accepted; the transitional state is visible.
      expect(await stateOf(cp, ID)).toBe(LEADS_TO[sig].now);
      expect((await readStream(cp, ID)).status).toBe(LEADS_TO[sig].now.toUpperCase());
      for (const r of releases.splice(0)) r();
      await settle();
      expect(await stateOf(cp, ID)).toBe(LEADS_TO[sig].then);
      const ops = cp.runtime.calls.slice(before).map((c) => c.op);
      const expected: Record<Signal, string[]> = {
        start: ['start'],
        stop: ['stop'],
        pause: ['pause'],
        resume: ['resume'],
        reconcile: state === 'running' || state === 'paused' ? ['stop', 'start'] : ['start'],
      };
      expect(ops).toEqual(expected[sig]);
    } else if (ALREADY[sig].includes(state)) {
      // Idempotent: success, nothing changes, the runtime is not called; twice in a row too.
      expect(ok(await signal(cp, ID, sig))).toEqual({ id: ID, success: true });
      expect(ok(await signal(cp, ID, sig))).toEqual({ id: ID, success: true });
      expect(await stateOf(cp, ID)).toBe(state);
      expect(cp.runtime.calls.slice(before)).toEqual([]);
    } else {
      const error = expectError(await signal(cp, ID, sig), 409, 'invalid_state');
      expect(error.error.details).toEqual({ state, signal: sig, allowed: allowedIn(state) });
      expect(error.error.message).toContain(state);
      expect(await stateOf(cp, ID)).toBe(state);
      expect(cp.runtime.calls.slice(before)).toEqual([]);
    }
  });
});

describe.each(PREFIXES)('signals and status under "%s/streams"', (prefix) => {
  const url = `${prefix}/streams/${ID}`;

  it('takes the signal as a form field, as JSON {signal} and as YAML', async () => {
    ok(await json(cp, 'POST', `${prefix}/streams`, chainStream(ID)));
    expect(ok(await form(cp, 'POST', `${url}/signal`, { signal: 'start' }))).toEqual({
      id: ID,
      success: true,
    });
    await settle();
    expect(ok(await json(cp, 'POST', `${url}/signal`, { signal: 'pause' }))).toEqual({
      id: ID,
      success: true,
    });
    await settle();
    expect(ok(await text(cp, 'POST', `${url}/signal`, 'signal: resume\n'))).toEqual({
      id: ID,
      success: true,
    });
    await settle();
    expect(await stateOf(cp, ID)).toBe('running');
    expect(cp.runtime.ops(ID)).toEqual(['start', 'pause', 'resume']);
  });

  it('refuses an unknown, missing, empty or repeated signal with 400', async () => {
    ok(await json(cp, 'POST', `${prefix}/streams`, chainStream(ID)));
    const unknown = expectError(
      await form(cp, 'POST', `${url}/signal`, { signal: 'explode' }),
      400,
      'invalid_request',
    );
    expect(unknown.error.details).toMatchObject({ path: '/signal' });
    expect(unknown.error.message).toContain('explode');
    for (const sig of ['START', 'Start', 'restart']) {
      expectError(await json(cp, 'POST', `${url}/signal`, { signal: sig }), 400, 'invalid_request');
    }
    expectError(await json(cp, 'POST', `${url}/signal`, {}), 400, 'invalid_request');
    expectError(await json(cp, 'POST', `${url}/signal`, { signal: 5 }), 400, 'invalid_request');
    expectError(await json(cp, 'POST', `${url}/signal`, ['start']), 400, 'invalid_request');
    expectError(await form(cp, 'POST', `${url}/signal`, { signal: '' }), 400, 'invalid_request');
    expectError(await json(cp, 'POST', `${url}/signal`), 400, 'invalid_request');
    const repeated = await cp.app.inject({
      method: 'POST',
      url: `${url}/signal`,
      payload: 'signal=start&signal=stop',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectError(repeated, 400, 'invalid_request');
    expectError(
      await text(cp, 'POST', `${url}/signal`, 'signal=start', 'text/plain'),
      415,
      'unsupported_media_type',
    );
    expect(cp.runtime.ops(ID)).toEqual([]);
    expect(await stateOf(cp, ID)).toBe('created');
  });

  it('GET status: {success, status: {state, error, nodes: [{id, state, metrics}], pipes}} in lower case', async () => {
    const stream = chainStream(ID);
    stream.nodes[2] = { id: 'ws', type: 'EXECUTABLE_CONSUMER', executable: 'websocket', config: { port: 0 } };
    stream.pipes[1] = { id: 'p2', source: 'filt', destination: 'ws' };
    ok(await json(cp, 'POST', `${prefix}/streams`, stream));
    const zero = {
      itemsProcessed: 0,
      samplesProcessed: 0,
      errorCount: 0,
      framesDropped: 0,
      queueDepth: 0,
      restarts: 0,
      lastError: null,
    };
    expect(ok(await json(cp, 'GET', `${url}/status`))).toEqual({
      success: true,
      status: {
        state: 'created',
        degraded: false,
        error: null,
        nodes: ['gen', 'filt', 'ws'].map((id) => ({ id, state: 'created', metrics: zero })),
        pipes: {},
      },
    });
    ok(await signal(cp, ID, 'start', prefix));
    await settle();
    const live = { ...zero, itemsProcessed: 3, samplesProcessed: 30 };
    expect(ok(await json(cp, 'GET', `${url}/status`))).toEqual({
      success: true,
      status: {
        state: 'running',
        degraded: false,
        error: null,
        nodes: [
          { id: 'gen', state: 'running', metrics: live },
          { id: 'filt', state: 'running', metrics: live },
          // Node-specific info (the websocket's bound port) sits beside id, state and metrics.
          { id: 'ws', state: 'running', metrics: live, port: 50000 },
        ],
        pipes: {},
      },
    });
    ok(await signal(cp, ID, 'stop', prefix));
    await settle();
    const stopped = ok<{ status: { state: string; nodes: { state: string; metrics: unknown }[] } }>(
      await json(cp, 'GET', `${url}/status`),
    );
    expect(stopped.status.state).toBe('stopped');
    // Metrics stay readable after a stop.
    expect(stopped.status.nodes.map((n) => [n.state, n.metrics])).toEqual([
      ['terminated', live],
      ['terminated', live],
      ['terminated', live],
    ]);
  });

  it('a paused stream reads PAUSED on the stream and its nodes, paused in status', async () => {
    ok(await json(cp, 'POST', `${prefix}/streams`, chainStream(ID)));
    ok(await signal(cp, ID, 'start', prefix));
    await settle();
    ok(await signal(cp, ID, 'pause', prefix));
    await settle();
    const read = await readStream(cp, ID);
    expect([read.status, ...read.nodes.map((n) => n.status)]).toEqual([
      'PAUSED',
      'PAUSED',
      'PAUSED',
      'PAUSED',
    ]);
    const status = ok<{ status: { state: string; nodes: { state: string }[] } }>(
      await json(cp, 'GET', `${url}/status`),
    );
    expect([status.status.state, ...status.status.nodes.map((n) => n.state)]).toEqual([
      'paused',
      'paused',
      'paused',
      'paused',
    ]);
  });

  it('a node named like an Object.prototype member that the runtime has not reported yet still has a state', async () => {
    // Right after a live update adds a node, the runtime's last snapshot may not list it yet.
    // `nodes['constructor']` then read Object.prototype.constructor and the node lost its state.
    const stream = chainStream(ID);
    stream.nodes[2]!.id = 'constructor';
    stream.pipes[1]!.destination = 'constructor';
    ok(await json(cp, 'POST', `${prefix}/streams`, stream));
    ok(await signal(cp, ID, 'start', prefix));
    await settle();
    const status = cp.runtime.status.bind(cp.runtime);
    cp.runtime.status = (streamId: string) => {
      const full = status(streamId);
      if (full === undefined) return undefined;
      const { constructor: _dropped, ...nodes } = full.nodes;
      return { ...full, nodes };
    };
    const body = ok<{ status: { nodes: { id: string; state?: string }[] } }>(
      await json(cp, 'GET', `${url}/status`),
    );
    const node = body.status.nodes.find((n) => n.id === 'constructor')!;
    expect(typeof node.state).toBe('string');
    const read = await readStream(cp, ID);
    expect(typeof read.nodes.find((n) => n.id === 'constructor')!.status).toBe('string');
  });

  it('a node that fails to start puts the stream in error with the node lastError', async () => {
    ok(await json(cp, 'POST', `${prefix}/streams`, chainStream(ID)));
    cp.runtime.failStart.set('filt', 'the filter cannot start');
    expectError(await signal(cp, ID, 'start', prefix), 422, 'validation_failed');
    await settle();
    const body = ok<{
      status: {
        state: string;
        error: string;
        nodes: { id: string; state: string; metrics: { lastError: unknown } }[];
      };
    }>(await json(cp, 'GET', `${url}/status`));
    expect(body.status.state).toBe('error');
    expect(body.status.error).toContain('the filter cannot start');
    const filt = body.status.nodes.find((n) => n.id === 'filt')!;
    expect(filt.state).toBe('error');
    expect(filt.metrics.lastError).toContain('the filter cannot start');
    expect(body.status.nodes.filter((n) => n.id !== 'filt').map((n) => n.metrics.lastError)).toEqual([
      null,
      null,
    ]);
    const read = await readStream(cp, ID);
    expect(read.status).toBe('ERROR');
    expect(read.nodes.find((n) => n.id === 'filt')!.status).toBe('ERROR');

    // Start again once the cause is gone: the error is cleared.
    cp.runtime.failStart.clear();
    ok(await signal(cp, ID, 'start', prefix));
    await settle();
    const again = ok<{ status: { state: string; error: unknown; nodes: { state: string }[] } }>(
      await json(cp, 'GET', `${url}/status`),
    );
    expect(again.status.state).toBe('running');
    expect(again.status.error).toBeNull();
    expect(again.status.nodes.map((n) => n.state)).toEqual(['running', 'running', 'running']);
  });

  it('a stream that dies while pausing ends in error, not stuck in pausing', async () => {
    ok(await json(cp, 'POST', `${prefix}/streams`, chainStream(ID)));
    ok(await signal(cp, ID, 'start', prefix));
    await settle();
    const release = cp.runtime.hold('pause');
    ok(await signal(cp, ID, 'pause', prefix));
    expect(await stateOf(cp, ID)).toBe('pausing');
    // The stream's host dies mid-transition (WorkerRuntime: it forgets the stream, then reports it).
    cp.runtime.running.delete(ID);
    cp.runtime.emit({ type: 'stream_failed', streamId: ID, message: 'the host died' });
    release();
    await settle();
    const body = ok<{ status: { state: string; error: string | null } }>(
      await json(cp, 'GET', `${url}/status`),
    );
    expect(body.status.state).toBe('error');
    expect(body.status.error).toContain('not running');
    // From error, the way on is a start.
    ok(await signal(cp, ID, 'start', prefix));
    await settle();
    expect(await stateOf(cp, ID)).toBe('running');
  });

  it('a stream that died while paused ends in error on resume, not running over nothing', async () => {
    ok(await json(cp, 'POST', `${prefix}/streams`, chainStream(ID)));
    ok(await signal(cp, ID, 'start', prefix));
    await settle();
    ok(await signal(cp, ID, 'pause', prefix));
    await settle();
    // Gone from the runtime without an event reaching the manager (e.g. the event came while
    // another transition was under way).
    cp.runtime.running.delete(ID);
    const failed = expectError(await signal(cp, ID, 'resume', prefix), 409, 'transition_failed');
    expect(failed.error.details).toMatchObject({ state: 'error', signal: 'resume' });
    await settle();
    expect(await stateOf(cp, ID)).toBe('error');
  });

  it('a pause the runtime refuses while the stream still runs leaves it running', async () => {
    ok(await json(cp, 'POST', `${prefix}/streams`, chainStream(ID)));
    ok(await signal(cp, ID, 'start', prefix));
    await settle();
    const pause = cp.runtime.pause.bind(cp.runtime);
    cp.runtime.pause = async () => {
      throw new Error('pause timed out');
    };
    // Answered as failed (it answered success), the stream still running.
    const failed = expectError(await signal(cp, ID, 'pause', prefix), 409, 'transition_failed');
    expect(failed.error.message).toContain('pause timed out');
    expect(failed.error.details).toMatchObject({ state: 'running', signal: 'pause' });
    await settle();
    cp.runtime.pause = pause;
    const body = ok<{ status: { state: string; error: string | null } }>(
      await json(cp, 'GET', `${url}/status`),
    );
    // Still running: `error` stays null (it explains the error state only).
    expect(body.status).toMatchObject({ state: 'running', error: null });
    ok(await signal(cp, ID, 'pause', prefix));
    await settle();
    expect(await stateOf(cp, ID)).toBe('paused');
  });

  it('a stream that fails while running (runtime event) is in error', async () => {
    ok(await json(cp, 'POST', `${prefix}/streams`, chainStream(ID)));
    ok(await signal(cp, ID, 'start', prefix));
    await settle();
    cp.runtime.running.delete(ID);
    cp.runtime.emit({ type: 'stream_failed', streamId: ID, message: 'the host died' });
    const body = ok<{ status: { state: string; error: string } }>(await json(cp, 'GET', `${url}/status`));
    expect(body.status).toMatchObject({ state: 'error', error: 'the host died' });
    expectError(await signal(cp, ID, 'pause', prefix), 409, 'invalid_state');
    ok(await signal(cp, ID, 'reconcile', prefix));
    await settle();
    expect(await stateOf(cp, ID)).toBe('running');
  });
});

/**
 * Honest answers to stream signals (control plane over the FakeRuntime): a start that fails within
 * the signal's wait is answered as failed, pointing at the node; `stop` takes a failed stream out
 * of the wanted-running set. The same start failure on the real runtime:
 * test/e2e/streams-lifecycle-runtime.test.ts.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { type ControlPlane, controlPlane } from '../support/control-plane.js';
import { chainStream, expectError, json, ok, OTHER_ID, signal, stateOf } from './helpers.js';

const ID = OTHER_ID;

/** gen → filt → ws: the websocket node is the stream's third node (/nodes/2). */
function withWebSocket(id: string) {
  const stream = chainStream(id);
  stream.nodes[2] = {
    id: 'ws',
    type: 'EXECUTABLE_CONSUMER',
    executable: 'websocket',
    config: { port: 5555 },
  };
  stream.pipes[1] = { id: 'p2', source: 'filt', destination: 'ws' };
  return stream;
}

let open: ControlPlane[] = [];
afterEach(async () => {
  for (const cp of open) await cp.close({ keepData: true }).catch(() => undefined);
  for (const cp of open) rmSync(cp.dataDir, { recursive: true, force: true });
  open = [];
});

async function plane(dataDir?: string): Promise<ControlPlane> {
  const cp = await controlPlane(dataDir === undefined ? {} : { dataDir });
  open.push(cp);
  return cp;
}

describe('signal start that fails', () => {
  it('answers the failure (it answered success): the node, the reason, a pointer to the config field', async () => {
    const cp = await plane();
    ok(await json(cp, 'POST', '/stream/streams', withWebSocket(ID)));
    cp.runtime.failStart.set('ws', { reason: 'port 5555 is already in use', field: 'port', port: 5555 });
    const failed = expectError(await signal(cp, ID, 'start'), 422, 'validation_failed');
    expect(failed.error.details).toEqual({
      path: '/nodes/2/config/port',
      nodeId: 'ws',
      reason: 'port 5555 is already in use',
      field: 'port',
      port: 5555,
      state: 'error',
      signal: 'start',
    });
    expect(failed.error.message).toBe(
      'The stream could not start and is in error: node ws: port 5555 is already in use. Fix the cause (/nodes/2/config/port) and send start again.',
    );
    const status = ok<{
      status: { state: string; nodes: { id: string; state: string; metrics: { lastError: string } }[] };
    }>(await json(cp, 'GET', `/stream/streams/${ID}/status`));
    expect(status.status.state).toBe('error');
    const ws = status.status.nodes.find((n) => n.id === 'ws')!;
    expect(ws.state).toBe('error');
    expect(ws.metrics.lastError).toContain('port 5555 is already in use');
  });

  it('a reconcile that fails to start again is answered as failed too', async () => {
    const cp = await plane();
    ok(await json(cp, 'POST', '/stream/streams', withWebSocket(ID)));
    ok(await signal(cp, ID, 'start'));
    cp.runtime.failStart.set('filt', 'the filter cannot start');
    const failed = expectError(await signal(cp, ID, 'reconcile'), 422, 'validation_failed');
    expect(failed.error.details).toMatchObject({ path: '/nodes/1', nodeId: 'filt', signal: 'reconcile' });
    expect(await stateOf(cp, ID)).toBe('error');
  });
});

describe('a start that fails after its answer', () => {
  it('is announced as a late failure naming the stream and the node (nothing was announced)', async () => {
    const announced: { streamId: string; message: string }[] = [];
    let heard: () => void = () => undefined;
    const announcement = new Promise<void>((resolve) => {
      heard = resolve;
    });
    const cp = await controlPlane({
      // The start is held open past the answer by the gate below, not by a race with this wait.
      signalWaitMs: 50,
      onLateFailure: (streamId, message) => {
        announced.push({ streamId, message });
        heard();
      },
    });
    open.push(cp);
    ok(await json(cp, 'POST', '/stream/streams', withWebSocket(ID)));
    const release = cp.runtime.hold('start');
    cp.runtime.failStart.set('ws', 'port 5555 is already in use');
    // Answered as accepted while the start is under way: nothing has failed yet.
    expect(ok(await signal(cp, ID, 'start'))).toEqual({ id: ID, success: true });
    expect(announced).toEqual([]);
    release();
    await announcement;
    expect(announced).toEqual([
      {
        streamId: ID,
        message: expect.stringMatching(
          new RegExp(
            `^Stream ${ID} failed to start after its answer: .*node ws: port 5555 is already in use`,
          ),
        ) as string,
      },
    ]);
    expect(await stateOf(cp, ID)).toBe('error');
  });
});

describe('signal stop from error', () => {
  it('is accepted (it was 409): the stream is stopped, wanted stopped, and not started again at the next start-up', async () => {
    const first = await plane();
    ok(await json(first, 'POST', '/stream/streams', chainStream(ID)));
    first.runtime.failStart.set('filt', 'the filter cannot start');
    expectError(await signal(first, ID, 'start'), 422, 'validation_failed');
    expect(await stateOf(first, ID)).toBe('error');

    expect(ok(await signal(first, ID, 'stop'))).toEqual({ id: ID, success: true });
    const status = ok<{ status: { state: string; error: unknown; nodes: { state: string }[] } }>(
      await json(first, 'GET', `/stream/streams/${ID}/status`),
    );
    expect(status.status).toMatchObject({ state: 'stopped', error: null });
    expect(status.status.nodes.map((n) => n.state)).toEqual(['terminated', 'terminated', 'terminated']);
    expect(first.manager.get(ID).desired).toBe('stopped');

    open = [];
    await first.close({ keepData: true });
    const second = await plane(first.dataDir);
    await second.manager.settle();
    expect(second.runtime.ops(ID)).toEqual([]);
    expect(await stateOf(second, ID)).toBe('stopped');
  });
});

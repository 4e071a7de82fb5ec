/**
 * Persistence (docs/api.md §Lifecycle): definitions and desired run states survive closing the control
 * plane; a new one on the same data dir finds every stream, starts again those that were running
 * (and pauses again those that were paused), and leaves the others alone.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type ControlPlane, controlPlane, referenceStream, STREAM_ID } from '../support/control-plane.js';
import { chainStream, expectError, json, ok, readStream, signal, stateOf } from './helpers.js';

const RUNNING = '11111111-1111-4111-8111-111111111111';
const PAUSED = '22222222-2222-4222-8222-222222222222';
const STOPPED = '33333333-3333-4333-8333-333333333333';
const FAILED = '44444444-4444-4444-8444-444444444444';
const CREATED = STREAM_ID;

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

describe('restart on the same data dir', () => {
  it('finds every stream with its definition; running ones start again, the others do not', async () => {
    const first = await plane();
    ok(await json(first, 'POST', '/stream/streams', referenceStream(CREATED)));
    for (const id of [RUNNING, PAUSED, STOPPED, FAILED])
      ok(await json(first, 'POST', '/stream/streams', chainStream(id)));
    // An edit, so that what is stored is the latest definition, not the first.
    ok(
      await json(first, 'POST', `/stream/streams/${RUNNING}/nodes`, [{ id: 'extra', executable: 'logger' }]),
    );
    ok(await signal(first, RUNNING, 'start'));
    ok(await signal(first, PAUSED, 'start'));
    ok(await signal(first, STOPPED, 'start'));
    await first.manager.settle();
    ok(await signal(first, PAUSED, 'pause'));
    ok(await signal(first, STOPPED, 'stop'));
    first.runtime.failStart.set('filt', 'no such device');
    expectError(await signal(first, FAILED, 'start'), 422, 'validation_failed');
    await first.manager.settle();
    expect(await stateOf(first, FAILED)).toBe('error');

    const before = new Map<string, unknown>();
    for (const id of [CREATED, RUNNING, PAUSED, STOPPED, FAILED]) {
      const { status: _s, nodes, ...rest } = await readStream(first, id);
      before.set(id, { ...rest, nodes: nodes.map(({ status: _n, ...node }) => node) });
    }
    // The list without the run states (FAILED runs after the restart).
    const listed = async (cp: ControlPlane) =>
      ok<{ streams: { state: string }[] }>(await json(cp, 'GET', '/stream/streams')).streams.map(
        ({ state: _state, ...rest }) => rest,
      );
    const list = await listed(first);

    open = [];
    await first.close({ keepData: true });
    // Closing stops what runs without changing what is wanted.
    expect(first.runtime.running.size).toBe(0);

    const second = await plane(first.dataDir);
    await second.manager.settle();
    expect(await listed(second)).toEqual(list);
    for (const id of [CREATED, RUNNING, PAUSED, STOPPED, FAILED]) {
      const { status: _s, nodes, ...rest } = await readStream(second, id);
      expect({ ...rest, nodes: nodes.map(({ status: _n, ...node }) => node) }).toEqual(before.get(id));
    }

    // The runtime of the new control plane was asked to start exactly the wanted ones.
    const starts = second.runtime.calls.filter((c) => c.op === 'start').map((c) => c.streamId);
    expect(starts.sort()).toEqual([RUNNING, PAUSED, FAILED].sort());
    expect(second.runtime.calls.filter((c) => c.op === 'pause').map((c) => c.streamId)).toEqual([PAUSED]);
    const startedNodes = second.runtime.calls.find((c) => c.op === 'start' && c.streamId === RUNNING)!.detail;
    expect(startedNodes).toEqual(['gen', 'filt', 'log', 'extra']);

    expect(await stateOf(second, RUNNING)).toBe('running');
    expect(await stateOf(second, PAUSED)).toBe('paused');
    expect(await stateOf(second, STOPPED)).toBe('stopped');
    expect(await stateOf(second, CREATED)).toBe('created');
    // It failed to start last time but was wanted running: tried again, and the cause is gone.
    expect(await stateOf(second, FAILED)).toBe('running');
    expect((await readStream(second, CREATED)).nodes.map((n) => n.status)).toEqual(['CREATED', 'CREATED']);
  });

  it('a stream paused before a restart is started again and then paused (it was marked paused without starting)', async () => {
    const first = await plane();
    ok(await json(first, 'POST', '/stream/streams', chainStream(PAUSED)));
    ok(await signal(first, PAUSED, 'start'));
    await first.manager.settle();
    ok(await signal(first, PAUSED, 'pause'));
    await first.manager.settle();
    open = [];
    await first.close({ keepData: true });

    const second = await plane(first.dataDir);
    await second.manager.settle();
    expect(second.runtime.ops(PAUSED)).toEqual(['start', 'pause']);
    expect(second.runtime.running.get(PAUSED)?.paused).toBe(true);
    expect(await stateOf(second, PAUSED)).toBe('paused');
    ok(await signal(second, PAUSED, 'resume'));
    await second.manager.settle();
    expect(second.runtime.running.get(PAUSED)?.paused).toBe(false);
  });

  it('the stream list keeps its order across a restart, even for streams created in the same millisecond', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2030-01-01T00:00:00.000Z'));
    try {
      const first = await plane();
      // Created in this order, within one millisecond, ids not in sorted order.
      for (const id of [STOPPED, RUNNING, FAILED, PAUSED])
        ok(await json(first, 'POST', '/stream/streams', chainStream(id)));
      const ids = (cp: ControlPlane) =>
        json(cp, 'GET', '/stream/streams').then((r) =>
          ok<{ streams: { id: string }[] }>(r).streams.map((s) => s.id),
        );
      expect(await ids(first)).toEqual([STOPPED, RUNNING, FAILED, PAUSED]);
      open = [];
      await first.close({ keepData: true });
      const second = await plane(first.dataDir);
      expect(await ids(second)).toEqual([STOPPED, RUNNING, FAILED, PAUSED]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a deleted stream stays deleted, a stopped one stays stopped across two restarts', async () => {
    const first = await plane();
    ok(await json(first, 'POST', '/stream/streams', chainStream(RUNNING)));
    ok(await json(first, 'POST', '/stream/streams', chainStream(STOPPED)));
    ok(await signal(first, RUNNING, 'start'));
    ok(await signal(first, STOPPED, 'start'));
    await first.manager.settle();
    ok(await json(first, 'DELETE', `/stream/streams/${RUNNING}`));
    ok(await signal(first, STOPPED, 'stop'));
    await first.manager.settle();
    open = [];
    await first.close({ keepData: true });

    const second = await plane(first.dataDir);
    await second.manager.settle();
    expect(
      ok<{ streams: { id: string }[] }>(await json(second, 'GET', '/stream/streams')).streams.map(
        (s) => s.id,
      ),
    ).toEqual([STOPPED]);
    expect(second.runtime.calls.filter((c) => c.op === 'start')).toEqual([]);
    ok(await signal(second, STOPPED, 'start'));
    await second.manager.settle();
    open = [];
    await second.close({ keepData: true });

    const third = await plane(first.dataDir);
    await third.manager.settle();
    expect(await stateOf(third, STOPPED)).toBe('running');
    expect(third.runtime.ops(STOPPED)).toEqual(['start']);
  });
});

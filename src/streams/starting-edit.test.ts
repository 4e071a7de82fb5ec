/**
 * Edits answered before their nodes have started (the maker's SDK paths): stored first, the next
 * edit built on them at once, and a node that cannot start kept in the stream and announced,
 * never rolled back behind the answer the client was given.
 */
import { describe, expect, test } from 'vitest';
import type { StreamDefinition } from '../core/stream-model.js';
import { HeadsetdError } from '../core/errors.js';
import { NodeFailureError } from './runtime/stream-runtime.js';
import type { StreamDegradedEvent } from './degradation.js';
import { addNodes, addPipes } from './edits.js';
import { newEntry, type StreamEntry } from './entry.js';
import { type KeepingDeps, startingEdit } from './starting-edit.js';

const STREAM: StreamDefinition = {
  id: '9d7c1f2e-4b3a-4c5d-8e6f-7a8b9c0d1e2f',
  nodes: [
    {
      id: 'gen',
      executable: 'signal-generator',
      config: { sampleRate: 10, amplitudes: [1], frequencies: [1] },
    },
  ],
  pipes: [],
  meta: { created: '2026-01-01T00:00:00.000Z', updated: '2026-01-01T00:00:00.000Z' },
};

const LOGGER = { id: 'log', executable: 'logger', config: {} };

/** Deps whose runtime's update waits until `release` and then does what `outcome` says. */
function setUp() {
  let release: (failure?: Error) => void = () => undefined;
  const updates: StreamDefinition[] = [];
  const stored: number[] = [];
  const events: StreamDegradedEvent[] = [];
  let queue: Promise<void> = Promise.resolve();
  const deps: KeepingDeps = {
    // The stream's queue of runtime work: one after the other, as Transitions.enqueue runs them.
    transitions: {
      enqueue: (_entry: StreamEntry, work: () => Promise<void>) => {
        const run = queue.then(work);
        queue = run.catch(() => undefined);
        return run;
      },
    },
    runtime: {
      update: (definition) => {
        updates.push(definition);
        return new Promise<void>((resolve, reject) => {
          release = (failure) => {
            if (failure === undefined) resolve();
            else reject(failure);
          };
        });
      },
    },
    store: {
      replace: (_definition, revision) => {
        stored.push(revision);
      },
    },
    context: { executablesDirs: [] },
    onEvent: (event) => {
      events.push(event);
    },
  };
  const entry = newEntry(STREAM, 'running', 'running');
  return {
    deps,
    entry,
    updates,
    stored,
    events,
    release: (failure?: Error) => {
      release(failure);
    },
  };
}

const node = (definition: StreamDefinition) => ({
  ...addNodes(definition, [LOGGER]),
  at: { collection: 'nodes' as const, offset: definition.nodes.length },
});

describe('an edit answered before its nodes start', () => {
  test('is stored and answered while the node still starts; the next edit builds on it at once', async () => {
    const { deps, entry, stored, updates, release } = setUp();
    const edit = await startingEdit(deps, entry, node);
    expect(edit).toMatchObject({ added: ['log'], revision: 2 });
    expect(stored).toEqual([2]);
    expect(entry.definition.nodes.map((n) => n.id)).toEqual(['gen', 'log']);
    // The pipe to it is stored before the node has started.
    const pipe = await startingEdit(deps, entry, (definition) => ({
      ...addPipes(definition, [{ id: 'p', source: 'gen', destination: 'log' }]),
      at: { collection: 'pipes', offset: definition.pipes.length },
    }));
    expect(pipe).toMatchObject({ added: ['p'], revision: 3 });
    release();
    await expect(edit.started).resolves.toBeUndefined();
    // The runtime is given each edit in turn.
    await Promise.resolve();
    release();
    await expect(pipe.started).resolves.toBeUndefined();
    expect(updates.map((d) => d.pipes.length)).toEqual([0, 1]);
  });

  test('a node that cannot start stays in the stream, the stream announced degraded, the failure no fault of the request', async () => {
    const { deps, entry, stored, events, release } = setUp();
    const edit = await startingEdit(deps, entry, node);
    release(new NodeFailureError({ nodeId: 'log', reason: "did not announce 'ready' within 9500 ms" }));
    const failure = await edit.started;
    expect(failure).toBeInstanceOf(HeadsetdError);
    expect(failure?.code).toBe('transition_failed');
    expect(failure?.message).toMatch(
      /^Node log was added to stream .* but could not start: did not announce 'ready'.*stays in the stream, in error/,
    );
    expect(entry.definition.nodes.map((n) => n.id)).toEqual(['gen', 'log']);
    expect(stored).toEqual([2]);
    expect(events).toEqual([
      {
        type: 'stream_degraded',
        streamId: STREAM.id,
        nodeId: 'log',
        message: "it could not start: did not announce 'ready' within 9500 ms",
        cause: 'node_error',
      },
    ]);
  });

  test('a failure that names the config field keeps its code', async () => {
    const { deps, entry, release } = setUp();
    const edit = await startingEdit(deps, entry, node);
    release(
      new NodeFailureError({ nodeId: 'log', reason: 'port 80 is taken', field: 'port' }, 'validation_failed'),
    );
    expect((await edit.started)?.code).toBe('validation_failed');
  });

  test('an invalid node is refused before anything is stored, pointing into the request', async () => {
    const { deps, entry, stored, updates } = setUp();
    const refused = startingEdit(deps, entry, (definition) => ({
      ...addNodes(definition, [{ id: 'bad', executable: 'signal-generator', config: { sampleRate: 0 } }]),
      at: { collection: 'nodes', offset: definition.nodes.length },
    }));
    await expect(refused).rejects.toMatchObject({
      message: expect.stringMatching(/^The body at \/0\/config/),
      details: { path: expect.stringMatching(/^\/0\/config/) },
    });
    expect(stored).toEqual([]);
    expect(updates).toEqual([]);
    expect(entry.revision).toBe(1);
  });

  test('on a stream that does not run, nothing is started', async () => {
    const { deps, updates } = setUp();
    const entry = newEntry(STREAM, 'stopped', 'stopped');
    const edit = await startingEdit(deps, entry, node);
    await expect(edit.started).resolves.toBeUndefined();
    expect(updates).toEqual([]);
  });
});

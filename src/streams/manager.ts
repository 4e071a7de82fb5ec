/**
 * The stream manager: the catalogue of streams (create, read, replace, delete, restore after a
 * restart), the signals a client may send in each state (lifecycle.ts decides, transitions.ts
 * carries them out on the runtime), and edits applied atomically, live when the stream runs.
 */
import { HeadsetdError } from '../core/errors.js';
import { STREAM_LIMITS } from '../core/stream-model.js';
import { rebaseError } from './edit-errors.js';
import * as edits from './edits.js';
import type { GraphContext } from './graph-document.js';
import { newEntry, type StreamChange, type StreamEntry } from './entry.js';
import { transitionError } from './failures.js';
import { deviceRefusal } from './device-refusal.js';
import { degradation, type StreamDegradedEvent, type StreamRecoveredEvent } from './degradation.js';
import { planSignal } from './lifecycle.js';
import { assertNodeSignal } from './node-signal.js';
import type { StreamDefinition, StreamSignal, StreamState } from '../core/stream-model.js';
import type { RuntimeEvent, RuntimeStreamStatus, StreamRuntime } from './runtime/stream-runtime.js';
import { editedDefinition, type KeepingDeps, type StartingEdit, startingEdit } from './starting-edit.js';
import type { DesiredState, StreamStore } from './store.js';
import { type Precondition, queueEdit } from './revision.js';
import { type Outcome, Transitions } from './transitions.js';
import {
  assertExecutablesAllowed,
  assertGraph,
  type DefinitionBody,
  parseCreateDocument,
  parseReplaceDocument,
} from './stream-document.js';
import { errorMessage } from '../core/error-message.js';
import { ListenerSet } from '../core/listener-set.js';
import { isUuid, uuidRequired } from '../core/uuid.js';

export type { StreamChange, StreamEntry } from './entry.js';
export type { StartingEdit } from './starting-edit.js';

export type { StreamDegradedEvent, StreamRecoveredEvent } from './degradation.js';

/** The runtime's events, and those the manager draws from them. */
export type StreamEvent = RuntimeEvent | StreamDegradedEvent | StreamRecoveredEvent;

export interface ManagerOptions {
  context: GraphContext;
  /** Called for every runtime event after the manager has applied it, and for the manager's own (system events, logs). */
  onRuntimeEvent?: (event: StreamEvent) => void;
  onError?: (message: string, error: unknown) => void;
  /** A condition a person should know of that is not a fault of the service (a stream restored in error). */
  onWarn?: (message: string, details: Record<string, unknown>) => void;
}

/** A stream signal under way: `outcome` resolves when its transition ended, with the error to answer if it failed. */
export interface SignalTicket {
  outcome: Promise<HeadsetdError | undefined>;
}

export class StreamManager {
  private readonly entries = new Map<string, StreamEntry>();
  private readonly store: StreamStore;
  private readonly runtime: StreamRuntime;
  private readonly options: ManagerOptions;
  private readonly transitions: Transitions;
  private readonly listeners = new ListenerSet<StreamChange>((error, change) => {
    this.options.onError?.(`stream ${change.entry.definition.id}: a change listener threw`, error);
  });

  constructor(store: StreamStore, runtime: StreamRuntime, options: ManagerOptions) {
    this.store = store;
    this.runtime = runtime;
    this.options = options;
    this.transitions = new Transitions({
      runtime,
      persistDesired: (entry, desired) => {
        if (this.entries.get(entry.definition.id) === entry)
          this.store.setDesired(entry.definition.id, desired);
      },
      onError: options.onError,
    });
    runtime.onEvent((event) => {
      this.onRuntimeEvent(event);
    });
  }

  /**
   * Hears every stream added (created or restored), every change of a stream's state, and every
   * stream removed, as it happens. Returns the function that stops listening.
   */
  onChange(listener: (change: StreamChange) => void): () => void {
    return this.listeners.add(listener);
  }

  get context(): GraphContext {
    return this.options.context;
  }

  /**
   * Loads every stored stream; those that were running (or paused) are started again. One that
   * cannot start is left in `error` (still wanted running) and reported through `onWarn`.
   */
  restore(): void {
    for (const { definition, desired, revision } of this.store.all()) {
      const entry = this.newEntry(
        definition,
        desired === 'created' ? 'created' : 'stopped',
        desired,
        revision,
      );
      this.entries.set(definition.id, entry);
      this.listeners.emit({ kind: 'added', entry });
      if (desired === 'running' || desired === 'paused') {
        // The desired state is already stored: these write nothing, so a full store cannot stop them.
        void this.transitions.start(entry).then((failure) => {
          if (failure === undefined || entry.state !== 'error') return;
          this.options.onWarn?.(
            `stream ${definition.id} restored in error: ${entry.error ?? errorMessage(failure.error)}`,
            { streamId: definition.id, node: entry.failedNode, reason: entry.error },
          );
        });
        if (desired === 'paused') void this.transitions.pauseOnceStarted(entry);
      }
    }
  }

  list(): StreamEntry[] {
    return [...this.entries.values()];
  }

  get(id: string): StreamEntry {
    const entry = this.entries.get(id.toLowerCase());
    if (entry === undefined) {
      if (!isUuid(id)) {
        // No stream can have it: say what an id looks like rather than only that it is unknown.
        const { rule, example } = uuidRequired(id);
        const shown = id.length > 64 ? `${id.slice(0, 64)}…` : id;
        throw new HeadsetdError('stream_not_found', `No stream has the id '${shown}', nor can: ${rule}.`, {
          id,
          example,
        });
      }
      throw new HeadsetdError('stream_not_found', `No stream has the id '${id}'.`, { id });
    }
    return entry;
  }

  /**
   * A dry run of {@link create}: every check a create makes (the document, its executables, an id
   * already taken), and nothing stored or started. Editors call it as the user types.
   */
  check(document: unknown): { id: string } {
    const body = parseCreateDocument(document, this.context);
    this.assertNewId(body.id);
    return { id: body.id };
  }

  private assertNewId(id: string): void {
    if (this.entries.has(id)) {
      throw new HeadsetdError(
        'stream_exists',
        `A stream with the id '${id}' already exists; use PUT to replace it.`,
        {
          path: '/id',
        },
      );
    }
  }

  create(document: unknown): StreamDefinition {
    const body = parseCreateDocument(document, this.context);
    this.assertNewId(body.id);
    if (this.entries.size >= STREAM_LIMITS.maxStreams) {
      throw new HeadsetdError(
        'validation_failed',
        `The device holds at most ${STREAM_LIMITS.maxStreams} streams; delete one first.`,
        {},
      );
    }
    const now = new Date().toISOString();
    const definition = withMeta(body, now, now);
    this.store.insert(definition);
    const entry = this.newEntry(definition, 'created', 'created');
    this.entries.set(definition.id, entry);
    this.listeners.emit({ kind: 'added', entry });
    return definition;
  }

  /**
   * PUT: replaces the definition; a running stream gets the difference applied live. Like every
   * edit below, it answers the revision it stored, and with a precondition (If-Match) applies only
   * to a revision it names.
   */
  async replace(
    id: string,
    document: unknown,
    precondition?: Precondition,
  ): Promise<{ definition: StreamDefinition; revision: number }> {
    const entry = this.get(id);
    return queueEdit(entry, precondition, async () => {
      const body = parseReplaceDocument(document, entry.definition.id, this.context);
      const definition = withMeta(body, entry.definition.meta.created, new Date().toISOString());
      await this.commit(entry, definition);
      return { definition };
    });
  }

  async remove(id: string, precondition?: Precondition): Promise<void> {
    const entry = this.get(id);
    // After the edits under way, so that the revision checked is the one deleted.
    if (precondition !== undefined) await queueEdit(entry, precondition, async () => ({}));
    if (this.entries.get(entry.definition.id) !== entry) {
      throw new HeadsetdError(
        'stream_not_found',
        `No stream has the id '${id}' (it was deleted meanwhile).`,
        {
          id,
        },
      );
    }
    // Forgotten from the store first: a store that cannot (a full disk) leaves the stream as it was.
    this.store.remove(entry.definition.id);
    this.entries.delete(entry.definition.id);
    this.listeners.emit({ kind: 'removed', entry });
    if (entry.state !== 'created' && entry.state !== 'stopped' && entry.state !== 'error') {
      entry.state = 'stopping';
      // The stream is gone from the store already; a runtime that fails to stop it is logged,
      // not reported as a failed delete.
      await this.transitions.enqueue(entry, async () => {
        try {
          await this.runtime.stop(entry.definition.id);
        } catch (error) {
          this.options.onError?.(`stream ${entry.definition.id}: stop on delete failed`, error);
        }
        entry.state = 'stopped';
      });
    }
    this.runtime.forget(entry.definition.id);
  }

  /**
   * A stream signal (lifecycle.ts). Throws when the signal is refused in the stream's state, or when
   * the store cannot take the desired state (then nothing changed); otherwise returns once the
   * transition is accepted, with its outcome.
   */
  signal(id: string, signal: StreamSignal): SignalTicket {
    const entry = this.get(id);
    const plan = planSignal(entry.state, signal);
    if (plan.kind === 'noop') return { outcome: Promise.resolve(undefined) };
    if (plan.kind === 'invalid') {
      throw new HeadsetdError(
        'invalid_state',
        `The stream is ${entry.state}; '${signal}' is not possible now (possible: ${plan.allowed.join(', ') || 'none until the transition ends'}).`,
        { state: entry.state, signal, allowed: plan.allowed },
      );
    }
    if (signal === 'start' || signal === 'reconcile') {
      assertExecutablesAllowed(entry.definition, this.context);
      // Refused before anything changes, not after the signal's wait (device-refusal.ts).
      const refusal = deviceRefusal(entry.definition, this.context);
      if (refusal !== undefined) throw transitionError(entry, signal, refusal);
    }
    const transition: Record<StreamSignal, (e: StreamEntry) => Outcome> = {
      start: (e) => this.transitions.start(e),
      stop: (e) => this.transitions.stop(e),
      pause: (e) => this.transitions.pause(e),
      resume: (e) => this.transitions.resume(e),
      reconcile: (e) => this.transitions.reconcile(e),
    };
    const outcome = transition[signal](entry).then((failure) =>
      failure === undefined ? undefined : transitionError(entry, signal, failure.error),
    );
    return { outcome };
  }

  async addNodes(
    id: string,
    body: unknown,
    precondition?: Precondition,
  ): Promise<{ added: string[]; revision: number }> {
    const entry = this.get(id);
    return queueEdit(entry, precondition, async () => {
      const { graph, added } = edits.addNodes(entry.definition, body);
      await this.commitGraph(entry, graph, { collection: 'nodes', offset: entry.definition.nodes.length });
      return { added };
    });
  }

  /**
   * {@link addNodes} for a client that cannot wait for the nodes to start (the maker's SDK gives
   * the call 1 s; an external program may take seconds to say it is ready): resolves once the edit
   * is validated and stored, and applies it in the stream's turn. A node that then cannot start is
   * not rolled back, since the client was answered it was added: it stays in the stream in
   * `error`, the stream is degraded and `stream_degraded` is announced, as a stream whose start
   * failed stays in `error`.
   */
  addNodesStarting(id: string, body: unknown): Promise<StartingEdit> {
    return startingEdit(this.keeping(), this.get(id), (definition) => ({
      ...edits.addNodes(definition, body),
      at: { collection: 'nodes', offset: definition.nodes.length },
    }));
  }

  /** {@link addPipes} as {@link addNodesStarting} adds nodes: answered once stored. */
  addPipesStarting(id: string, body: unknown): Promise<StartingEdit> {
    return startingEdit(this.keeping(), this.get(id), (definition) => ({
      ...edits.addPipes(definition, body),
      at: { collection: 'pipes', offset: definition.pipes.length },
    }));
  }

  private keeping(): KeepingDeps {
    return {
      transitions: this.transitions,
      runtime: this.runtime,
      store: this.store,
      context: this.context,
      onEvent: (event) => this.options.onRuntimeEvent?.(event),
    };
  }

  async removeNodes(
    id: string,
    body: unknown,
    precondition?: Precondition,
  ): Promise<{ nodes: string[]; pipes: string[]; revision: number }> {
    const entry = this.get(id);
    return queueEdit(entry, precondition, async () => {
      const { graph, removed, removedPipes } = edits.removeNodes(entry.definition, body);
      await this.commitGraph(entry, graph);
      return { nodes: removed, pipes: removedPipes };
    });
  }

  async addPipes(
    id: string,
    body: unknown,
    precondition?: Precondition,
  ): Promise<{ added: string[]; revision: number }> {
    const entry = this.get(id);
    return queueEdit(entry, precondition, async () => {
      const { graph, added } = edits.addPipes(entry.definition, body);
      await this.commitGraph(entry, graph, { collection: 'pipes', offset: entry.definition.pipes.length });
      return { added };
    });
  }

  async removePipes(
    id: string,
    body: unknown,
    precondition?: Precondition,
  ): Promise<{ removed: string[]; revision: number }> {
    const entry = this.get(id);
    return queueEdit(entry, precondition, async () => {
      const { graph, removed } = edits.removePipes(entry.definition, body);
      await this.commitGraph(entry, graph);
      return { removed };
    });
  }

  async signalNode(
    id: string,
    nodeId: string,
    signal: string,
    payload: Record<string, unknown>,
  ): Promise<void> {
    const entry = this.get(id);
    assertNodeSignal(entry, nodeId, signal);
    await this.transitions.enqueue(entry, () =>
      this.runtime.signalNode(entry.definition.id, nodeId, signal, payload),
    );
  }

  /** Live status while the runtime runs the stream, else the last one it reported. */
  runtimeStatus(entry: StreamEntry): RuntimeStreamStatus | undefined {
    return this.runtime.status(entry.definition.id) ?? entry.lastStatus;
  }

  isLive(entry: StreamEntry): boolean {
    return this.runtime.status(entry.definition.id) !== undefined;
  }

  logs(id: string, nodeId: string) {
    const entry = this.get(id);
    if (!entry.definition.nodes.some((n) => n.id === nodeId)) {
      throw new HeadsetdError('node_not_found', `The stream has no node '${nodeId}'.`, { nodeId });
    }
    return this.runtime.logs(entry.definition.id, nodeId);
  }

  /** Waits until every queued transition has ended (tests and shutdown). */
  async settle(): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => e.queue));
  }

  /** Stops every running stream without touching desired states, so a restart resumes them. */
  async close(): Promise<void> {
    await this.settle();
    await Promise.all(
      [...this.entries.values()]
        .filter((e) => this.runtime.status(e.definition.id) !== undefined)
        .map((e) =>
          this.runtime
            .stop(e.definition.id)
            .catch((error: unknown) => this.options.onError?.('stop at shutdown failed', error)),
        ),
    );
    await this.runtime.close();
  }

  private newEntry(
    definition: StreamDefinition,
    state: StreamState,
    desired: DesiredState,
    revision = 1,
  ): StreamEntry {
    return newEntry(
      definition,
      state,
      desired,
      (entry, previous) => {
        this.listeners.emit({ kind: 'state', entry, previous });
      },
      revision,
    );
  }

  /**
   * Validates and commits an edited graph. `added` says where the request's items sit in it, so
   * that their errors point into the request body; a removal adds nothing, and any error it meets
   * concerns the stream's remaining items (an executable that vanished since), so it is left
   * pointing into the stream.
   */
  private async commitGraph(
    entry: StreamEntry,
    graph: edits.GraphDocument,
    added?: { collection: 'nodes' | 'pipes'; offset: number },
  ): Promise<void> {
    try {
      assertGraph(graph.nodes, graph.pipes, this.context);
    } catch (error) {
      throw added === undefined ? error : rebaseError(error, added.collection, added.offset);
    }
    await this.commit(entry, editedDefinition(entry.definition, graph));
  }

  /** Stores a validated definition and applies it live; on a live failure both are rolled back. */
  private async commit(entry: StreamEntry, definition: StreamDefinition): Promise<void> {
    const previous = entry.definition;
    const previousRevision = entry.revision;
    this.store.replace(definition, previousRevision + 1);
    entry.definition = definition;
    entry.revision = previousRevision + 1;
    if (entry.state === 'created' || entry.state === 'stopped' || entry.state === 'error') return;
    try {
      await this.transitions.enqueue(entry, async () => {
        if (entry.state === 'running' || entry.state === 'paused' || entry.state === 'pausing') {
          await this.runtime.update(definition);
        }
      });
    } catch (error) {
      try {
        this.store.replace(previous, previousRevision);
      } catch (storeError) {
        // The refused definition stays stored: a restart of the service would load it.
        this.options.onError?.(`stream ${previous.id}: rollback of a refused edit not stored`, storeError);
      }
      entry.definition = previous;
      entry.revision = previousRevision;
      void this.transitions
        .enqueue(entry, async () => {
          if (this.runtime.status(previous.id) !== undefined) await this.runtime.update(previous);
        })
        .catch((rollbackError: unknown) => {
          this.options.onError?.(
            `stream ${previous.id}: rollback of a refused edit not applied`,
            rollbackError,
          );
        });
      throw error;
    }
  }

  private onRuntimeEvent(event: RuntimeEvent): void {
    const entry = this.entries.get(event.streamId);
    const live = entry !== undefined && (entry.state === 'running' || entry.state === 'paused');
    if (live && event.type === 'stream_failed') {
      entry.lastStatus = this.runtime.status(entry.definition.id) ?? entry.lastStatus;
      entry.state = 'error';
      entry.error = event.message;
    }
    // A node in error for good, or holding its frames back: the stream is degraded (degradation.ts).
    const health = degradation(entry, event);
    this.options.onRuntimeEvent?.(event);
    if (health !== undefined) this.options.onRuntimeEvent?.(health);
  }
}

function withMeta(body: DefinitionBody, created: string, updated: string): StreamDefinition {
  return { ...body, meta: { ...body.meta, created, updated } };
}

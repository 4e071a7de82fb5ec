/**
 * The lifecycle transitions as the runtime carries them out. Runtime work for one stream runs on
 * that stream's queue, so transitions never interleave.
 *
 * Each transition first stores the run state it asks for, and only then sets the transitional
 * state (visible in status at once) and queues the runtime work: when the store cannot take the
 * desired state (a full disk), the transition throws and nothing has changed, so the stream is
 * never left `stopping` or `starting` with nothing under way. Each returns its {@link Outcome}.
 */
import { type StreamEntry, stateOf } from './entry.js';
import type { StreamState } from '../core/stream-model.js';
import { NodeFailureError, type StreamRuntime } from './runtime/stream-runtime.js';
import type { DesiredState } from './store.js';
import { errorMessage } from '../core/error-message.js';

/** What transitions need from the stream manager: the runtime, the store of desired states, and where errors go. */
export interface TransitionDeps {
  readonly runtime: StreamRuntime;
  /** Stores a desired state, unless the stream was deleted meanwhile; throws when the store cannot. */
  persistDesired(entry: StreamEntry, desired: DesiredState): void;
  onError?: ((message: string, error: unknown) => void) | undefined;
}

/** How a transition ended: undefined once it completed, else what made it fail. Never rejects. */
export type Outcome = Promise<{ error: unknown } | undefined>;

export class Transitions {
  constructor(private readonly deps: TransitionDeps) {}

  /**
   * Queues `work` and returns its run; its failure goes to the caller (who answers or logs it),
   * not to the log: a node refusing a signal is the client's 4xx, answered and logged as such by
   * the API, never an error of the service logged here a second time.
   */
  enqueue(entry: StreamEntry, work: () => Promise<void>): Promise<void> {
    const run = entry.queue.then(work);
    entry.queue = run.catch(() => undefined);
    return run;
  }

  /** Stores `desired` (when it differs from what is stored); throws, changing nothing, when it cannot. */
  setDesired(entry: StreamEntry, desired: DesiredState): void {
    if (entry.desired === desired) return;
    this.deps.persistDesired(entry, desired);
    entry.desired = desired;
  }

  start(entry: StreamEntry): Outcome {
    this.setDesired(entry, 'running');
    return this.beginStart(entry);
  }

  /** Stops a running or paused stream and starts it again; from any other state, a start. */
  reconcile(entry: StreamEntry): Outcome {
    this.setDesired(entry, 'running');
    if (entry.state === 'running' || entry.state === 'paused') void this.outcome(entry, this.stopWork(entry));
    return this.beginStart(entry);
  }

  stop(entry: StreamEntry): Outcome {
    this.setDesired(entry, 'stopped');
    entry.state = 'stopping';
    return this.outcome(entry, this.stopWork(entry));
  }

  pause(entry: StreamEntry): Outcome {
    this.setDesired(entry, 'paused');
    entry.state = 'pausing';
    return this.outcome(entry, this.pauseWork(entry));
  }

  /**
   * A restored paused stream: pause once the queued start has completed. Setting `pausing` at once
   * (as pause does) made that start see a state other than `starting` and skip the runtime, so the
   * stream read `paused` while nothing ran and a resume answered `running` over nothing.
   */
  pauseOnceStarted(entry: StreamEntry): Outcome {
    this.setDesired(entry, 'paused');
    return this.outcome(entry, async () => {
      if (entry.state !== 'running') return;
      entry.state = 'pausing';
      await this.pauseWork(entry)();
    });
  }

  resume(entry: StreamEntry): Outcome {
    this.setDesired(entry, 'running');
    entry.state = 'running';
    return this.outcome(entry, async () => {
      try {
        await this.deps.runtime.resume(entry.definition.id);
      } catch (error) {
        this.transitionFailed(entry, 'running', 'paused', error);
        throw error;
      }
    });
  }

  /** Queues `work`; its failure goes to the outcome (whose holder answers or logs it), not to the log. */
  private outcome(entry: StreamEntry, work: () => Promise<void>): Outcome {
    const result: Outcome = entry.queue.then(work).then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
    entry.queue = result.then(() => undefined);
    return result;
  }

  private beginStart(entry: StreamEntry): Outcome {
    entry.state = 'starting';
    entry.error = null;
    entry.failedNode = null;
    entry.held = new Map();
    return this.outcome(entry, async () => {
      if (entry.state !== 'starting') return;
      try {
        await this.deps.runtime.start(entry.definition);
        // A stop may have arrived while the runtime was starting.
        if (stateOf(entry) === 'starting') entry.state = 'running';
      } catch (error) {
        entry.lastStatus = this.deps.runtime.status(entry.definition.id) ?? entry.lastStatus;
        if (stateOf(entry) === 'starting') {
          entry.state = 'error';
          entry.error = errorMessage(error);
          entry.failedNode = error instanceof NodeFailureError ? error.failure.nodeId : null;
        }
        throw error;
      }
    });
  }

  /**
   * The runtime work of a stop. A runtime that fails to stop has still let go of the stream (the
   * real one ends its worker whatever happens): the failure is logged and the stream is stopped.
   */
  private stopWork(entry: StreamEntry): () => Promise<void> {
    return async () => {
      entry.lastStatus = this.deps.runtime.status(entry.definition.id) ?? entry.lastStatus;
      try {
        // The status after the stop: the nodes' final counts (a recorder's last frames included).
        entry.lastStatus = (await this.deps.runtime.stop(entry.definition.id)) ?? entry.lastStatus;
      } catch (error) {
        this.deps.onError?.(`stream ${entry.definition.id}: stop failed`, error);
      }
      if (stateOf(entry) === 'stopping') {
        entry.state = 'stopped';
        // `error` explains the error state only; a stream stopped from `error` is plainly stopped.
        entry.error = null;
        entry.failedNode = null;
      }
    };
  }

  private pauseWork(entry: StreamEntry): () => Promise<void> {
    return async () => {
      if (entry.state !== 'pausing') return;
      try {
        await this.deps.runtime.pause(entry.definition.id);
      } catch (error) {
        this.transitionFailed(entry, 'pausing', 'running', error);
        throw error;
      }
      if (stateOf(entry) === 'pausing') entry.state = 'paused';
    };
  }

  /**
   * A pause or resume the runtime refused. The stream either still runs, in the state it was in
   * before (`previous`), or is gone (its worker died mid-transition: the runtime's stream_failed
   * came while the state was transitional and was not applied), and then it is in `error`.
   * Without this the stream stayed `pausing` forever, or `running` over nothing after a resume.
   */
  private transitionFailed(
    entry: StreamEntry,
    during: StreamState,
    previous: StreamState,
    error: unknown,
  ): void {
    if (stateOf(entry) !== during) return;
    if (this.deps.runtime.status(entry.definition.id) === undefined) {
      entry.state = 'error';
      entry.error = errorMessage(error);
      return;
    }
    entry.state = previous;
    try {
      this.setDesired(entry, previous === 'paused' ? 'paused' : 'running');
    } catch (storeError) {
      // The stream runs as before; only a restart of the service would find it wanted otherwise.
      this.deps.onError?.(`stream ${entry.definition.id}: desired state not restored`, storeError);
    }
  }
}

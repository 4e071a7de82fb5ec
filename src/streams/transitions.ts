/**
 * The lifecycle transitions of API-NOTES.md §Lifecycle as the runtime carries them out. Runtime
 * work for one stream runs on that stream's queue, so transitions never interleave; each method
 * sets the transitional state at once (visible in status) and queues the runtime work behind it.
 */
import { HeadsetdError } from '../errors.js';
import { messageOf, type StreamEntry, stateOf } from './entry.js';
import type { StreamState } from './model.js';
import type { StreamRuntime } from './runtime-port.js';
import type { DesiredState } from './store.js';

export interface TransitionHost {
  readonly runtime: StreamRuntime;
  /** Stores a desired state, unless the stream was deleted meanwhile. */
  persistDesired(entry: StreamEntry, desired: DesiredState): void;
  onError?: ((message: string, error: unknown) => void) | undefined;
}

export class Transitions {
  constructor(private readonly host: TransitionHost) {}

  enqueue(entry: StreamEntry, work: () => Promise<void>): Promise<void> {
    const run = entry.queue.then(work);
    entry.queue = run.catch((error: unknown) => {
      this.host.onError?.(`stream ${entry.definition.id}: runtime operation failed`, error);
    });
    return run;
  }

  setDesired(entry: StreamEntry, desired: DesiredState): void {
    entry.desired = desired;
    this.host.persistDesired(entry, desired);
  }

  start(entry: StreamEntry): void {
    entry.state = 'starting';
    entry.error = null;
    entry.failedNode = null;
    this.setDesired(entry, 'running');
    void this.enqueue(entry, async () => {
      if (entry.state !== 'starting') return;
      try {
        await this.host.runtime.start(entry.definition);
        // A stop may have arrived while the runtime was starting.
        if (stateOf(entry) === 'starting') entry.state = 'running';
      } catch (error) {
        entry.lastStatus = this.host.runtime.status(entry.definition.id) ?? entry.lastStatus;
        if (entry.state === 'starting') {
          entry.state = 'error';
          entry.error = messageOf(error);
          const nodeId = error instanceof HeadsetdError ? error.details?.nodeId : undefined;
          entry.failedNode = typeof nodeId === 'string' ? nodeId : null;
        }
      }
    }).catch(() => undefined);
  }

  stop(entry: StreamEntry): void {
    entry.state = 'stopping';
    this.setDesired(entry, 'stopped');
    void this.enqueue(entry, async () => {
      entry.lastStatus = this.host.runtime.status(entry.definition.id) ?? entry.lastStatus;
      try {
        await this.host.runtime.stop(entry.definition.id);
      } finally {
        if (entry.state === 'stopping') entry.state = 'stopped';
      }
    }).catch(() => undefined);
  }

  pause(entry: StreamEntry): void {
    entry.state = 'pausing';
    this.setDesired(entry, 'paused');
    void this.enqueue(entry, async () => {
      if (entry.state !== 'pausing') return;
      try {
        await this.host.runtime.pause(entry.definition.id);
      } catch (error) {
        this.transitionFailed(entry, 'pausing', 'running', error);
        throw error;
      }
      if (stateOf(entry) === 'pausing') entry.state = 'paused';
    }).catch(() => undefined);
  }

  /**
   * A pause or resume the runtime refused. The stream either still runs, in the state it was in
   * before (`previous`), or is gone (its host died mid-transition: the runtime's stream_failed
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
    if (this.host.runtime.status(entry.definition.id) === undefined) {
      entry.state = 'error';
      entry.error = messageOf(error);
    } else {
      entry.state = previous;
      this.setDesired(entry, previous === 'paused' ? 'paused' : 'running');
    }
  }

  /**
   * A restored paused stream: pause once the queued start has completed. Setting `pausing` at once
   * (as #pause does) made that start see a state other than `starting` and skip the runtime, so the
   * stream read `paused` while nothing ran and a resume answered `running` over nothing.
   */
  pauseOnceStarted(entry: StreamEntry): void {
    this.setDesired(entry, 'paused');
    void this.enqueue(entry, async () => {
      if (entry.state !== 'running') return;
      entry.state = 'pausing';
      try {
        await this.host.runtime.pause(entry.definition.id);
      } catch (error) {
        this.transitionFailed(entry, 'pausing', 'running', error);
        throw error;
      }
      if (stateOf(entry) === 'pausing') entry.state = 'paused';
    }).catch(() => undefined);
  }

  resume(entry: StreamEntry): void {
    entry.state = 'running';
    this.setDesired(entry, 'running');
    void this.enqueue(entry, async () => {
      try {
        await this.host.runtime.resume(entry.definition.id);
      } catch (error) {
        this.transitionFailed(entry, 'running', 'paused', error);
        throw error;
      }
    }).catch(() => undefined);
  }
}

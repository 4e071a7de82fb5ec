/**
 * Long device operations as jobs: an operation that takes seconds (seating electrodes, the
 * closed-loop optimizer) runs in the background under an id, reports its progress, can be
 * cancelled, and leaves a record of how it ended. The registry knows nothing of HTTP nor of what
 * the operations do: an operation is a function of an abort signal and a progress callback.
 *
 * Finished jobs are kept for {@link JOB_RETENTION_MS} and at most {@link JOBS_KEPT} of them (the
 * oldest go first), so a client can read a result a while after the operation ended; running jobs
 * are always kept.
 */
import { randomUUID } from 'node:crypto';
import { HeadsetdError, isHeadsetdError } from '../../core/errors.js';
import { ListenerSet, type Unsubscribe } from '../../core/listener-set.js';

/** Finished jobs kept at most. */
export const JOBS_KEPT = 100;
/** How long a finished job stays readable (ms). */
export const JOB_RETENTION_MS = 15 * 60 * 1000;

export type JobStatus = 'running' | 'completed' | 'failed' | 'cancelled';

/** Why a job failed, in the terms of the error envelope. */
export interface JobError {
  readonly code: string;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

/** What a client reads of a job. Times are ISO 8601. */
export interface JobRecord<P extends object = object, R extends object = object> {
  readonly id: string;
  /** What runs, e.g. `electrodes.prepare`. */
  readonly operation: string;
  readonly status: JobStatus;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** null while running. */
  readonly finishedAt: string | null;
  /** The operation's own account of how far it got (an object, as the API answers it); kept after it ends. */
  readonly progress: P;
  /** The operation's answer (an object) once `completed`, else null. */
  readonly result: R | null;
  /** Why it `failed`, or what cancelled it; else null. */
  readonly error: JobError | null;
}

/** What an operation gets to run with. */
export interface JobContext<P> {
  /** Aborted when the job is cancelled: the operation stops its work safely and rejects. */
  readonly signal: AbortSignal;
  /** Replaces the job's progress and tells the registry's listeners. */
  readonly progress: (progress: P) => void;
}

export interface Job<P extends object, R extends object> {
  readonly id: string;
  record(): JobRecord<P, R>;
  /** Settles with the operation: its result, or its error (the cancellation's when cancelled). */
  readonly settled: Promise<R>;
}

export interface JobRegistryOptions {
  readonly kept?: number;
  readonly retentionMs?: number;
  /** Wall-clock time in ms since the epoch (default `Date.now`). */
  readonly now?: () => number;
}

interface Entry {
  id: string;
  operation: string;
  status: JobStatus;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | undefined;
  progress: object;
  result: object | null;
  error: JobError | null;
  readonly abort: AbortController;
  settled: Promise<unknown>;
}

/** The envelope's terms for any error an operation throws (a bug gives no stack away). */
function jobError(error: unknown): JobError {
  if (isHeadsetdError(error)) {
    return {
      code: error.code,
      message: error.message,
      ...(error.details === undefined ? {} : { details: error.details }),
    };
  }
  return { code: 'internal_error', message: 'The operation failed unexpectedly; see the service log.' };
}

export class JobRegistry {
  private readonly jobs = new Map<string, Entry>();
  private readonly listeners = new ListenerSet<JobRecord>();
  private readonly kept: number;
  private readonly retentionMs: number;
  private readonly now: () => number;

  constructor(options: JobRegistryOptions = {}) {
    this.kept = options.kept ?? JOBS_KEPT;
    this.retentionMs = options.retentionMs ?? JOB_RETENTION_MS;
    this.now = options.now ?? Date.now;
  }

  /**
   * Starts `run` as a job with `initial` progress; it begins at once (synchronously up to its first
   * await). A failure becomes the job's `error`; nothing is thrown to the caller except through
   * `settled`.
   */
  start<P extends object, R extends object>(
    operation: string,
    initial: P,
    run: (context: JobContext<P>) => Promise<R>,
  ): Job<P, R> {
    this.prune();
    const now = this.now();
    const entry: Entry = {
      id: randomUUID(),
      operation,
      status: 'running',
      createdAt: now,
      updatedAt: now,
      finishedAt: undefined,
      progress: initial,
      result: null,
      error: null,
      abort: new AbortController(),
      settled: Promise.resolve(),
    };
    this.jobs.set(entry.id, entry);
    const context: JobContext<P> = {
      signal: entry.abort.signal,
      progress: (progress) => {
        if (entry.status !== 'running') return;
        entry.progress = progress;
        entry.updatedAt = this.now();
        this.changed(entry);
      },
    };
    const settled = (async () => run(context))().then(
      (result) => {
        // An operation that finished before it saw the cancellation has completed all the same.
        this.finish(entry, 'completed', result, null);
        return result;
      },
      (error: unknown) => {
        const cancelled = entry.abort.signal.aborted;
        this.finish(entry, cancelled ? 'cancelled' : 'failed', null, jobError(error));
        throw error;
      },
    );
    // The registry keeps the outcome in the record; a caller that does not await is not an error.
    settled.catch(() => undefined);
    entry.settled = settled;
    this.changed(entry);
    return {
      id: entry.id,
      record: () => this.recordOf(entry) as JobRecord<P, R>,
      settled,
    };
  }

  get(id: string): JobRecord | undefined {
    this.prune();
    const entry = this.jobs.get(id);
    return entry === undefined ? undefined : this.recordOf(entry);
  }

  /** Every job kept, newest first. */
  list(): JobRecord[] {
    this.prune();
    return [...this.jobs.values()].reverse().map((entry) => this.recordOf(entry));
  }

  /**
   * Cancels a running job and resolves with its record once the operation has stopped; a job
   * that has already ended is answered as it is. Undefined for an unknown id.
   */
  async cancel(id: string): Promise<JobRecord | undefined> {
    const entry = this.jobs.get(id);
    if (entry === undefined) return undefined;
    if (entry.status === 'running') {
      entry.abort.abort(
        new HeadsetdError('operation_cancelled', `The ${entry.operation} job ${entry.id} was cancelled.`, {
          jobId: entry.id,
        }),
      );
      await entry.settled.catch(() => undefined);
    }
    return this.recordOf(entry);
  }

  /** Cancels every running job and waits for them (the service is closing). */
  async close(): Promise<void> {
    const running = [...this.jobs.values()].filter((entry) => entry.status === 'running');
    await Promise.all(running.map((entry) => this.cancel(entry.id)));
  }

  /** Called at every start, progress report and end of a job. */
  onChange(listener: (record: JobRecord) => void): Unsubscribe {
    return this.listeners.add(listener);
  }

  private finish(entry: Entry, status: JobStatus, result: object | null, error: JobError | null): void {
    const now = this.now();
    entry.status = status;
    entry.result = status === 'completed' ? result : null;
    entry.error = error;
    entry.finishedAt = now;
    entry.updatedAt = now;
    this.changed(entry);
  }

  private changed(entry: Entry): void {
    if (this.listeners.size > 0) this.listeners.emit(this.recordOf(entry));
  }

  private recordOf(entry: Entry): JobRecord {
    return {
      id: entry.id,
      operation: entry.operation,
      status: entry.status,
      createdAt: new Date(entry.createdAt).toISOString(),
      updatedAt: new Date(entry.updatedAt).toISOString(),
      finishedAt: entry.finishedAt === undefined ? null : new Date(entry.finishedAt).toISOString(),
      progress: entry.progress,
      result: entry.result,
      error: entry.error,
    };
  }

  /** Drops finished jobs past the retention time, then the oldest beyond the count kept. */
  private prune(): void {
    const cutoff = this.now() - this.retentionMs;
    const finished = [...this.jobs.values()].filter((entry) => entry.finishedAt !== undefined);
    let excess = finished.length - this.kept;
    for (const entry of finished) {
      if ((entry.finishedAt ?? 0) < cutoff || excess > 0) {
        this.jobs.delete(entry.id);
        excess--;
      }
    }
  }
}

const registries = new WeakMap<object, JobRegistry>();

/** The one job registry of a device (or of any owner), shared by everything that serves it. */
export function jobsFor(owner: object): JobRegistry {
  let registry = registries.get(owner);
  if (registry === undefined) {
    registry = new JobRegistry();
    registries.set(owner, registry);
  }
  return registry;
}

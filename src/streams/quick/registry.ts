/**
 * The quick streams the API knows, by stream id: a session per stream tagged as a quick stream
 * (streams/quick-stream.ts), made when POST /stream/start creates it, or when a quick stream is
 * found in the manager (one restored after a restart). It listens to the manager's changes, so what
 * happens through the other APIs is followed as it happens: a start or stop by signal begins or
 * ends a run, a deleted stream's session is disposed (its clients closed, its pipe ended).
 */
import { HeadsetdError } from '../../core/errors.js';
import type { StreamChange, StreamEntry, StreamManager } from '../manager.js';
import type { StreamState } from '../../core/stream-model.js';
import {
  bufferBytes,
  QUICK_BUFFERS_BUDGET_BYTES,
  type QuickStreamConfig,
  quickStreamConfigOf,
} from '../quick-stream.js';
import type { StreamRuntime } from '../runtime/stream-runtime.js';
import { QuickSession } from './session.js';

const ACTIVE_STATES: readonly StreamState[] = ['starting', 'running', 'pausing', 'paused'];

export function isActive(state: StreamState): boolean {
  return ACTIVE_STATES.includes(state);
}

export class QuickRegistry {
  private readonly sessions = new Map<string, QuickSession>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly manager: Pick<StreamManager, 'get' | 'list' | 'onChange'>,
    private readonly runtime: Pick<StreamRuntime, 'tap'>,
    private readonly clientSendLimitBytes: number | undefined,
  ) {
    this.unsubscribe = manager.onChange((change) => {
      this.follow(change);
    });
    for (const entry of manager.list()) this.sessionOf(entry);
  }

  /** The stream (404 stream_not_found) and its quick-stream session (404 not_found when it is not one). */
  resolve(id: string): { entry: StreamEntry; session: QuickSession } {
    const entry = this.manager.get(id);
    const session = this.sessionOf(entry);
    if (session === undefined) {
      throw new HeadsetdError(
        'not_found',
        `Stream ${entry.definition.id} is not a quick EEG stream (made by POST /stream/start), so it has no buffer, socket or pipe here; read it through /stream/streams/${entry.definition.id}.`,
        { id: entry.definition.id },
      );
    }
    return { entry, session };
  }

  /** The session of a quick stream, made on first sight; undefined for any other stream. */
  sessionOf(entry: StreamEntry): QuickSession | undefined {
    const id = entry.definition.id;
    const known = this.sessions.get(id);
    if (known !== undefined) return known;
    const config = quickStreamConfigOf(entry.definition);
    if (config === undefined) return undefined;
    const session = new QuickSession(id, config, this.runtime, this.clientSendLimitBytes);
    if (isActive(entry.state)) session.beginRun();
    this.sessions.set(id, session);
    return session;
  }

  /** Bytes the buffers of every known quick stream take when full, and how many streams hold them. */
  bufferUse(): { bytes: number; streams: number } {
    let bytes = 0;
    for (const session of this.sessions.values()) bytes += bufferBytes(session.config);
    return { bytes, streams: this.sessions.size };
  }

  /**
   * Refuses a new quick stream whose buffer would take the buffers of all of them together over
   * QUICK_BUFFERS_BUDGET_BYTES (422 at /bufferSize, naming the room left).
   */
  assertBufferRoom(config: Pick<QuickStreamConfig, 'bufferSize' | 'channels'>): void {
    const use = this.bufferUse();
    const wanted = bufferBytes(config);
    if (use.bytes + wanted <= QUICK_BUFFERS_BUDGET_BYTES) return;
    const room = Math.max(0, QUICK_BUFFERS_BUDGET_BYTES - use.bytes);
    const fits = Math.floor(room / bufferBytes({ bufferSize: 1, channels: config.channels }));
    const mib = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`;
    throw new HeadsetdError(
      'validation_failed',
      `A buffer of ${config.bufferSize} samples × ${config.channels.length} channel(s) takes ${mib(wanted)}, and the ${use.streams} quick stream(s) already made hold ${mib(use.bytes)} of the ${mib(QUICK_BUFFERS_BUDGET_BYTES)} all quick streams may use: ask for at most ${fits} samples, or delete a quick stream you no longer read (DELETE /stream/streams/{id}).`,
      {
        path: '/bufferSize',
        limitBytes: QUICK_BUFFERS_BUDGET_BYTES,
        usedBytes: use.bytes,
        maxBufferSize: fits,
      },
    );
  }

  /** Forgets a session (its stream was removed). */
  drop(id: string, reason: string): void {
    this.sessions.get(id)?.dispose(reason);
    this.sessions.delete(id);
  }

  close(): void {
    this.unsubscribe();
    for (const id of [...this.sessions.keys()]) this.drop(id, 'The service is shutting down.');
  }

  private isCurrent(entry: StreamEntry): boolean {
    return this.manager.list().includes(entry);
  }

  private follow(change: StreamChange): void {
    const id = change.entry.definition.id;
    if (change.kind === 'removed') {
      this.drop(id, 'The stream was deleted.');
      return;
    }
    // A deleted stream still announces its stop after 'removed': making it a session again would
    // keep its buffer (and its room in the budget) for the life of the service.
    if (!this.isCurrent(change.entry)) return;
    const session = this.sessionOf(change.entry);
    if (session === undefined || change.kind === 'added') return;
    const active = isActive(change.entry.state);
    const running = session.startTime !== undefined && session.stopTime === undefined;
    if (active && !running) session.beginRun();
    else if (!active && running) session.endRun();
  }
}

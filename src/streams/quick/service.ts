/**
 * The use cases of quick EEG streams (docs/api.md §Quick EEG streams): POST /stream/start makes an
 * ordinary stream of the engine (eeg-source → filter → tap, streams/quick-stream.ts), starts it and
 * waits for it to run, removing it again when it cannot; /stop stops it and ends its run. The routes
 * of api/quick-streams.ts parse, call one method here and shape the answer.
 */
import { channelsUnavailable } from '../../device/sources/frame-source.js';
import { HeadsetdError } from '../../core/errors.js';
import type { RuntimeStreamStatus } from '../runtime/stream-runtime.js';
import type { StreamEntry, StreamManager } from '../manager.js';
import {
  parseQuickStart,
  type QuickStartBody,
  type QuickStreamConfig,
  quickStreamDocument,
} from '../quick-stream.js';
import { settleWithin } from '../../core/deadline.js';
import type { QuickRegistry } from './registry.js';
import type { QuickSession } from './session.js';

/** How long start and stop wait for the transition by default, ms. */
export const DEFAULT_TRANSITION_TIMEOUT_MS = 20_000;

export interface QuickStreamsOptions {
  /** How long start and stop wait for the transition (default 20 s). */
  transitionTimeoutMs?: number;
  /**
   * The channels the device acquires now (Headset.eeg.acquiredChannels): an EEG quick stream that
   * names others is refused before it is made. Absent: only the eeg-source's own start checks.
   */
  acquiredChannels?: () => readonly string[];
  /**
   * The channels the device plays, as its frames name them (Headset.eeg.channels): what an EEG
   * quick stream may name, and reads when it names none. Absent: the headset's 19 EEG electrodes.
   */
  deviceChannels?: () => readonly string[];
}

export interface StartedQuickStream {
  streamId: string;
  config: QuickStreamConfig;
  status: string;
}

export interface StoppedQuickStream {
  streamId: string;
  status: string;
  /** Seconds the run lasted. */
  duration: number;
  samples: number;
}

/** What GET /stream/{streamId}/status is made of. */
export interface QuickStreamView {
  entry: StreamEntry;
  session: QuickSession;
  runtime: RuntimeStreamStatus | undefined;
  live: boolean;
}

/** 409 channels_unavailable for an EEG quick stream naming channels the device does not acquire. */
function assertAcquired(config: QuickStreamConfig, body: QuickStartBody, acquired: readonly string[]): void {
  if (config.source !== 'eeg') return;
  const refusal = channelsUnavailable(config.channels, acquired);
  if (refusal === undefined) return;
  const { field, ...details } = refusal.details ?? {};
  // A list points at the first channel not acquired; a string, or the default, at `channels`.
  const path = Array.isArray(body.channels) ? `/${String(field)}` : '/channels';
  const defaulted =
    body.channels === undefined
      ? ` (channels was not given, so it asked for all ${config.channels.length} channels of the device)`
      : '';
  throw new HeadsetdError(refusal.code, `${refusal.message}${defaulted}.`, { ...details, path });
}

/** `promise`'s value, or undefined when it has not settled within `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  const result = await settleWithin(promise, ms);
  return result.done ? result.value : undefined;
}

export class QuickStreams {
  private readonly timeoutMs: number;

  constructor(
    private readonly manager: StreamManager,
    readonly registry: QuickRegistry,
    private readonly options: QuickStreamsOptions = {},
  ) {
    this.timeoutMs = options.transitionTimeoutMs ?? DEFAULT_TRANSITION_TIMEOUT_MS;
  }

  /**
   * Makes a quick stream from a start request, starts it and waits for it to run (at most the
   * transition timeout). One that does not run by then is removed again and refused:
   * 409 channels_unavailable when the device's channels changed meanwhile, else device_unavailable
   * with the reason.
   */
  async start(body: QuickStartBody): Promise<StartedQuickStream> {
    const config = parseQuickStart(body, this.options.deviceChannels?.());
    if (this.options.acquiredChannels !== undefined) {
      assertAcquired(config, body, this.options.acquiredChannels());
    }
    this.registry.assertBufferRoom(config);
    const { manager, registry, timeoutMs } = this;
    const definition = manager.create(quickStreamDocument(config));
    const entry = manager.get(definition.id);
    registry.sessionOf(entry)?.beginRun();
    const failure = await within(manager.signal(definition.id, 'start').outcome, timeoutMs);
    if (entry.state !== 'running') {
      const reason = entry.error ?? `it is still ${entry.state} after ${timeoutMs / 1000} s`;
      await manager.remove(definition.id).catch(() => undefined);
      registry.drop(definition.id, 'The stream could not start.');
      // The device's configuration changed between the check above and the start.
      if (failure?.code === 'channels_unavailable') {
        const why = typeof failure.details?.reason === 'string' ? failure.details.reason : reason;
        throw new HeadsetdError('channels_unavailable', `${why}.`, {
          channels: failure.details?.channels,
          acquired: failure.details?.acquired,
          path: '/channels',
        });
      }
      throw new HeadsetdError('device_unavailable', `The quick stream could not start: ${reason}`, {
        reason,
      });
    }
    return { streamId: definition.id, config, status: entry.state };
  }

  /** Stops a quick stream (kept, stopped), waiting for the transition at most the timeout; ends its run. */
  async stop(id: string): Promise<StoppedQuickStream> {
    const { entry, session } = this.registry.resolve(id);
    await within(this.manager.signal(entry.definition.id, 'stop').outcome, this.timeoutMs);
    session.endRun();
    return {
      streamId: entry.definition.id,
      status: entry.state,
      duration: session.duration(),
      samples: session.samples,
    };
  }

  /** The stream (404 stream_not_found) and its quick-stream session (404 not_found when it is not one). */
  resolve(id: string): { entry: StreamEntry; session: QuickSession } {
    return this.registry.resolve(id);
  }

  /** A quick stream with its runtime figures, for its status. */
  view(id: string): QuickStreamView {
    const { entry, session } = this.registry.resolve(id);
    return {
      entry,
      session,
      runtime: this.manager.runtimeStatus(entry),
      live: this.manager.isLive(entry),
    };
  }
}

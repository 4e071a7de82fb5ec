/**
 * Quick EEG streams (docs/api.md §Quick EEG streams): what POST /stream/start asks for,
 * checked for meaning, and the ordinary stream definition that runs it:
 * `source` (eeg-source, or ingest for frames piped from another headsetd) → `filter` (only when a
 * filter is asked for) → `tap` (frames to the main thread, where the quick-streams API keeps the
 * ring buffer and serves the WebSocket). The request is kept in `meta.quickStream` and the stream
 * is tagged {@link QUICK_STREAM_TAG}, so a quick stream is recognised after a restart too.
 */
import { randomUUID } from 'node:crypto';
import { channelName, EEG_ELECTRODES, parseElectrode } from '../core/electrodes.js';
import { HeadsetdError } from '../core/errors.js';
import type { StreamDefinition } from '../core/stream-model.js';
import { EEG_SAMPLING_FREQUENCIES } from '../core/hardware.js';

/** The tag in `meta.tags` that marks a quick stream. */
export const QUICK_STREAM_TAG = 'quick-stream';

/** Node ids of a quick stream's graph. */
export const QUICK_NODES = { source: 'source', filter: 'filter', tap: 'tap' } as const;

export const DEFAULT_QUICK_SAMPLE_RATE = 250;
/** Seconds of samples kept for GET /stream/{id}/data when `bufferSize` is not given. */
export const DEFAULT_BUFFER_SECONDS = 10;
/** Bound of the ring buffer, in values (samples × channels): 64 MiB of Float32. */
export const MAX_BUFFER_VALUES = 16 * 1024 * 1024;

/**
 * Bytes the buffers of every quick stream together may take (docs/api.md §Quick EEG streams):
 * each may hold up to MAX_BUFFER_VALUES samples, and 256 of them could otherwise ask for tens of
 * gigabytes, more than the headset has.
 */
export const QUICK_BUFFERS_BUDGET_BYTES = 512 * 1024 * 1024;

/** Bytes a quick stream's buffer takes when full: 4 per value, 8 per row for its timestamp. */
export function bufferBytes(config: Pick<QuickStreamConfig, 'bufferSize' | 'channels'>): number {
  return config.bufferSize * (4 * config.channels.length + 8);
}

export interface QuickFilters {
  highpass?: number;
  lowpass?: number;
  notch?: number;
}

/** A quick stream's settings, as answered in `config` and kept in `meta.quickStream`. */
export interface QuickStreamConfig {
  /** `eeg`: the headset's acquisition; `ingest`: frames sent to /stream/{id}/ingest. */
  source: 'eeg' | 'ingest';
  /** Hz. */
  sampleRate: number;
  /** Upper-case electrode names, in the order asked for. */
  channels: string[];
  filters: QuickFilters;
  /** Samples (rows) kept for /data. */
  bufferSize: number;
  /** The client's own, kept as given. */
  metadata: Record<string, unknown>;
}

/** The body of POST /stream/start after the route's schema (types) has passed. */
export interface QuickStartBody {
  source?: 'eeg' | 'ingest';
  sampleRate?: number;
  channels?: string[] | string;
  filters?: { highpass?: number | null; lowpass?: number | null; notch?: number | null };
  bufferSize?: number;
  metadata?: Record<string, unknown>;
}

function invalid(path: string, message: string): HeadsetdError {
  return new HeadsetdError('validation_failed', message, { path });
}

/** The headset's EEG channels, as frames name them: what a quick stream reads when no device says otherwise. */
export const HEADSET_CHANNELS: readonly string[] = Object.freeze(EEG_ELECTRODES.map(channelName));

/** The channels asked for (any case), as `device` (the names its frames carry) names them. */
function parseChannels(channels: QuickStartBody['channels'], device: readonly string[]): string[] {
  if (channels === undefined) return [...device];
  const list = typeof channels === 'string' ? channels.split(',').map((c) => c.trim()) : channels;
  if (list.length === 1 && list[0]?.toLowerCase() === 'all') return [...device];
  if (list.length === 0) throw invalid('/channels', 'channels is empty; name at least one channel.');
  const seen = new Set<string>();
  return list.map((name, i) => {
    const upper = name.toUpperCase();
    const path = typeof channels === 'string' ? '/channels' : `/channels/${i}`;
    const known = device.find((d) => d.toUpperCase() === upper);
    if (known === undefined) {
      throw invalid(path, `'${name}' is not a channel of the device; use some of ${device.join(', ')}.`);
    }
    if (seen.has(upper)) throw invalid(path, `'${name}' is listed twice in channels.`);
    seen.add(upper);
    return known;
  });
}

function parseFilters(filters: QuickStartBody['filters'], sampleRate: number): QuickFilters {
  const out: QuickFilters = {};
  const nyquist = sampleRate / 2;
  for (const key of ['highpass', 'lowpass', 'notch'] as const) {
    const value = filters?.[key];
    if (value === undefined || value === null) continue;
    if (!(value > 0)) throw invalid(`/filters/${key}`, `filters.${key} must be above 0 Hz.`);
    if (value >= nyquist) {
      throw invalid(
        `/filters/${key}`,
        `filters.${key} (${value} Hz) must be below the Nyquist frequency (${nyquist} Hz) of sampleRate ${sampleRate}.`,
      );
    }
    out[key] = value;
  }
  if (out.highpass !== undefined && out.lowpass !== undefined && out.highpass >= out.lowpass) {
    throw invalid(
      '/filters/highpass',
      `filters.highpass (${out.highpass} Hz) must be below filters.lowpass (${out.lowpass} Hz).`,
    );
  }
  return out;
}

/** Checks a start request for meaning (422 `validation_failed` with a pointer) and fills in defaults. */
export function parseQuickStart(
  body: QuickStartBody,
  deviceChannels: readonly string[] = HEADSET_CHANNELS,
): QuickStreamConfig {
  const sampleRate = body.sampleRate ?? DEFAULT_QUICK_SAMPLE_RATE;
  if (!(EEG_SAMPLING_FREQUENCIES as readonly number[]).includes(sampleRate)) {
    throw invalid(
      '/sampleRate',
      `sampleRate ${sampleRate} is not a rate of the headset; use one of ${EEG_SAMPLING_FREQUENCIES.join(', ')} Hz.`,
    );
  }
  const channels = parseChannels(body.channels, deviceChannels);
  const filters = parseFilters(body.filters, sampleRate);
  const bufferSize = body.bufferSize ?? DEFAULT_BUFFER_SECONDS * sampleRate;
  if (bufferSize < 1 || bufferSize * channels.length > MAX_BUFFER_VALUES) {
    throw invalid(
      '/bufferSize',
      `bufferSize must be 1 to ${Math.floor(MAX_BUFFER_VALUES / channels.length)} samples for ${channels.length} channel(s).`,
    );
  }
  return {
    source: body.source ?? 'eeg',
    sampleRate,
    channels,
    filters,
    bufferSize,
    metadata: body.metadata ?? {},
  };
}

/** The stream document (for StreamManager.create) that runs a quick stream. */
export function quickStreamDocument(config: QuickStreamConfig, id: string = randomUUID()): unknown {
  const hasFilter = Object.keys(config.filters).length > 0;
  const source =
    config.source === 'eeg'
      ? {
          id: QUICK_NODES.source,
          type: 'EXECUTABLE_PRODUCER',
          meta: { type: 'SOURCE' },
          executable: 'eeg-source',
          config: { channels: config.channels, samplingFrequency: config.sampleRate },
        }
      : {
          id: QUICK_NODES.source,
          type: 'EXECUTABLE_PRODUCER',
          meta: { type: 'SOURCE' },
          executable: 'ingest',
          config: { channels: config.channels, sampleRate: config.sampleRate },
        };
  const nodes: unknown[] = [source];
  const pipes: unknown[] = [];
  let last: string = QUICK_NODES.source;
  if (hasFilter) {
    nodes.push({
      id: QUICK_NODES.filter,
      type: 'EXECUTABLE',
      meta: { type: 'FILTER' },
      executable: 'filter',
      config: { ...config.filters },
    });
    pipes.push({ id: 'source-filter', source: QUICK_NODES.source, destination: QUICK_NODES.filter });
    last = QUICK_NODES.filter;
  }
  nodes.push({
    id: QUICK_NODES.tap,
    type: 'EXECUTABLE_CONSUMER',
    meta: { type: 'OUTPUT' },
    executable: 'tap',
    config: {},
  });
  pipes.push({ id: `${last}-tap`, source: last, destination: QUICK_NODES.tap });
  return {
    id,
    meta: {
      name: 'Quick EEG stream',
      description: `POST /stream/start: ${config.source === 'eeg' ? 'headset EEG' : 'ingested frames'}${hasFilter ? ' → filter' : ''} → buffer and WebSocket /stream/${id}`,
      tags: [QUICK_STREAM_TAG],
      quickStream: config,
    },
    nodes,
    pipes,
  };
}

/** The quick-stream settings of a stream, or undefined when it is not a quick stream. */
export function quickStreamConfigOf(definition: StreamDefinition): QuickStreamConfig | undefined {
  if (definition.meta.tags?.includes(QUICK_STREAM_TAG) !== true) return undefined;
  const stored = definition.meta.quickStream as Partial<QuickStreamConfig> | undefined;
  if (stored === undefined || typeof stored !== 'object') return undefined;
  const { source, sampleRate, channels, bufferSize } = stored;
  if (
    (source !== 'eeg' && source !== 'ingest') ||
    typeof sampleRate !== 'number' ||
    !Array.isArray(channels) ||
    typeof bufferSize !== 'number'
  ) {
    return undefined;
  }
  return {
    source,
    sampleRate,
    // Streams stored before channels were named in the 10-20 form kept upper-case names.
    channels: channels.map((c: unknown) => {
      const electrode = parseElectrode(String(c));
      return electrode === undefined ? String(c) : channelName(electrode);
    }),
    filters: stored.filters ?? {},
    bufferSize,
    metadata: stored.metadata ?? {},
  };
}

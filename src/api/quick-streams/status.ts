/** GET /stream/{streamId}/status of a quick stream (docs/api.md §Quick EEG streams). */
import type { Static } from 'typebox';
import type { StreamEntry } from '../../streams/manager.js';
import type { RuntimeStreamStatus } from '../../streams/runtime/stream-runtime.js';
import type { StatusAnswer } from './schemas.js';
import type { QuickSession } from '../../streams/quick/session.js';
import { statusView } from '../../streams/views.js';

/**
 * `recording` is true while a recorder node of the stream (one added with the Streams API) writes a
 * file, and `recordingId` is that file's name (GET /system/recordings/{name}); false and null
 * otherwise.
 */
function recordingOf(entry: StreamEntry, runtime: RuntimeStreamStatus | undefined): string | null {
  for (const node of entry.definition.nodes) {
    if (node.executable !== 'recorder') continue;
    const status = runtime?.nodes[node.id];
    const file = status?.info?.recording;
    if (status?.state === 'running' && typeof file === 'string') return file;
  }
  return null;
}

export function statusOf(
  entry: StreamEntry,
  session: QuickSession,
  runtime: RuntimeStreamStatus | undefined,
  live: boolean,
): Static<typeof StatusAnswer> {
  const view = statusView(entry, runtime, live);
  const recordingId =
    entry.state === 'running' || entry.state === 'paused' ? recordingOf(entry, runtime) : null;
  return {
    success: true,
    streamId: entry.definition.id,
    status: entry.state,
    degraded: view.degraded,
    error: view.error,
    startTime: session.startTime === undefined ? null : new Date(session.startTime).toISOString(),
    duration: Math.round(session.duration() * 1000) / 1000,
    samples: session.samples,
    sampleRate: session.config.sampleRate,
    channels: [...session.channels],
    dataRate: session.dataRate(),
    clients: session.clients.size,
    recording: recordingId !== null,
    recordingId,
    bufferSize: session.config.bufferSize,
    buffered: session.ring.size,
    framesDropped: session.clients.dropped,
    pipe: session.forward?.status() ?? null,
    ingest:
      session.config.source === 'ingest'
        ? { clients: session.ingestClients, frames: session.ingestFrames }
        : null,
  };
}

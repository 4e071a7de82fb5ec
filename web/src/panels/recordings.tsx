/**
 * Recordings: the files of GET /system/recordings (download, delete), and a one-click recording of
 * the device's EEG. That is an ordinary stream, eeg-source → recorder (BDF+, the pipe lossless),
 * tagged `dashboard-recording` so that the page finds it again after a reload; markers go to the
 * recorder as its `marker` signal. Stopping stops the stream (the recorder closes its file) and
 * deletes it.
 */
import { useState } from 'preact/hooks';
import { api, describe, request } from '../api';
import { usePoll } from '../live';
import type { Recording, StreamSummary as ListedStream } from '../api-types';

const TAG = 'dashboard-recording';

/** A stream of the list; the dashboard's recording streams keep their file name in `meta.recording`. */
type StreamSummary = ListedStream & { meta: { recording?: string } };

function fileName(): string {
  const now = new Date();
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `eeg-${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}-${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}.bdf`;
}

async function download(name: string): Promise<void> {
  // Through fetch, so that the token goes in the header (a plain link could not carry it).
  const blob = await (await request(`/system/recordings/${encodeURIComponent(name)}`)).blob();
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => {
    URL.revokeObjectURL(url);
  }, 10_000);
}

export function RecordingsPanel() {
  const recordings = usePoll(
    async () => (await api<{ recordings: Recording[] }>('/system/recordings')).recordings,
    2000,
  );
  const active = usePoll(
    async () =>
      (await api<{ streams: StreamSummary[] }>('/stream/streams')).streams.find(
        (s) => s.meta.tags?.includes(TAG) === true && (s.state === 'running' || s.state === 'starting'),
      ) ?? null,
    1000,
  );
  const [marker, setMarker] = useState('');
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const recording = active.value ?? undefined;
  // A marker is a node signal, which the service takes only once the stream runs: while it starts
  // (a busy machine's first start can take a while) the form waits, and the badge says why.
  const markable = recording?.state === 'running';

  const run = (work: () => Promise<string>): void => {
    setBusy(true);
    setMessage('');
    work()
      .then(setMessage)
      .catch((e: unknown) => {
        setMessage(describe(e));
      })
      .finally(() => {
        setBusy(false);
        active.refresh();
        recordings.refresh();
      });
  };

  const start = (): void => {
    run(async () => {
      const id = crypto.randomUUID();
      const filename = fileName();
      await api('/stream/streams', {
        method: 'POST',
        body: {
          id,
          meta: { name: `Recording ${filename}`, tags: [TAG], recording: filename },
          nodes: [
            { id: 'eeg', type: 'EXECUTABLE_PRODUCER', executable: 'eeg-source' },
            { id: 'rec', type: 'EXECUTABLE_CONSUMER', executable: 'recorder', config: { filename } },
          ],
          pipes: [{ id: 'eeg-rec', source: 'eeg', destination: 'rec', policy: 'block' }],
        },
      });
      try {
        await api(`/stream/streams/${id}/signal`, { method: 'POST', body: { signal: 'start' } });
      } catch (error) {
        await api(`/stream/streams/${id}`, { method: 'DELETE' }).catch(() => undefined);
        throw error;
      }
      return `Recording to ${filename}.`;
    });
  };

  const stop = (): void => {
    if (recording === undefined) return;
    run(async () => {
      await api(`/stream/streams/${recording.id}/signal`, { method: 'POST', body: { signal: 'stop' } });
      await api(`/stream/streams/${recording.id}`, { method: 'DELETE' });
      return `Stopped; ${recording.meta.recording ?? 'the file'} is in the list.`;
    });
  };

  const mark = (): void => {
    if (recording === undefined || !markable || marker.trim() === '') return;
    const text = marker.trim();
    run(async () => {
      await api(`/stream/streams/${recording.id}/nodes/rec/signal`, {
        method: 'POST',
        body: { signal: 'marker', text },
      });
      setMarker('');
      return `Marker "${text}" added.`;
    });
  };

  return (
    <div class="cards">
      <section class="card">
        <h2>Record the device's EEG</h2>
        <p>
          <span class={`badge ${recording !== undefined ? 'rec' : ''}`} data-testid="recording-state">
            {recording === undefined
              ? 'not recording'
              : `${markable ? 'recording' : 'starting'} ${recording.meta.recording ?? ''}`}
          </span>
        </p>
        <div class="row">
          <button
            type="button"
            data-testid="record-start"
            disabled={busy || recording !== undefined}
            onClick={start}
          >
            ● Start recording
          </button>
          <button
            type="button"
            data-testid="record-stop"
            disabled={busy || recording === undefined}
            onClick={stop}
          >
            ■ Stop
          </button>
        </div>
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            mark();
          }}
        >
          <input
            placeholder="marker text, e.g. eyes closed"
            value={marker}
            data-testid="marker-text"
            onInput={(e) => {
              setMarker(e.currentTarget.value);
            }}
            disabled={!markable}
          />
          <button type="submit" disabled={!markable || marker.trim() === ''}>
            Add marker
          </button>
        </form>
        {message !== '' && <p data-testid="recording-message">{message}</p>}
      </section>
      <section class="card span2">
        <h2>Recordings</h2>
        {recordings.error !== undefined && <p class="error">{describe(recordings.error)}</p>}
        <table class="recordings" data-testid="recordings">
          <thead>
            <tr>
              <th>name</th>
              <th>created</th>
              <th>duration</th>
              <th>channels</th>
              <th>size</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {(recordings.value ?? []).length === 0 && (
              <tr>
                <td colSpan={6} class="muted">
                  No recording yet.
                </td>
              </tr>
            )}
            {(recordings.value ?? []).map((r) => (
              <tr key={r.name} data-recording={r.name}>
                <td>
                  {r.name} {!r.complete && <span class="badge warn">being written</span>}
                </td>
                <td>{new Date(r.created).toLocaleString()}</td>
                <td>{r.durationSeconds === null ? '?' : `${r.durationSeconds.toFixed(1)} s`}</td>
                <td>
                  {r.channels.length} @ {r.sampleRate ?? '?'} Hz
                </td>
                <td>{(r.bytes / 1024).toFixed(0)} KiB</td>
                <td class="buttons">
                  <button
                    type="button"
                    onClick={() => {
                      download(r.name).catch((e: unknown) => {
                        setMessage(describe(e));
                      });
                    }}
                  >
                    Download
                  </button>
                  <button
                    type="button"
                    onClick={() => {
                      if (!confirm(`Delete ${r.name}?`)) return;
                      run(async () => {
                        await api(`/system/recordings/${encodeURIComponent(r.name)}`, { method: 'DELETE' });
                        return `Deleted ${r.name}.`;
                      });
                    }}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </div>
  );
}

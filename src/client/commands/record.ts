/**
 * `headsetd record start|stop|mark`: a recording of the headset's EEG in one command. `start`
 * creates and starts a stream eeg-source → recorder (the pipe lossless, `block`), tagged
 * `headsetd-record` so that `stop` and `mark` find it; `stop` stops and removes that stream (the
 * file stays in /system/recordings); `mark` sends the recorder a marker, which lands in the file's
 * annotations at the sample it arrived.
 */
import type { Command, Group } from '../command.js';
import { listOption, stringOption } from '../command.js';
import { ApiError, UsageError } from '../failures.js';
import type { ApiClient } from '../http.js';
import { table } from '../table.js';
import { streamPath } from './stream-path.js';
import { type Recording, recordingColumns } from './recordings.js';

export const RECORD_TAG = 'headsetd-record';
const FORMATS = ['bdf', 'edf', 'csv'];
const RECORDER_NAMES = new Set(['recorder', 'Recorder', 'FileRecorder']);

interface Definition {
  id: string;
  meta?: { tags?: string[] };
  nodes: { id: string; executable: string; config?: { filename?: string; format?: string } }[];
}

interface Target {
  streamId: string;
  node: string;
  filename: string;
}

function defaultName(): string {
  return `recording-${new Date().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}`;
}

/** The file the recorder writes: the name with its format's extension. */
function fileName(filename: string, format: string | undefined): string {
  const extension = format ?? /\.(edf|bdf|csv)$/i.exec(filename)?.[1]?.toLowerCase() ?? 'edf';
  return filename.toLowerCase().endsWith(`.${extension}`) ? filename : `${filename}.${extension}`;
}

function recorderOf(definition: Definition, node: string | undefined): Target {
  const recorders = definition.nodes.filter((n) =>
    node === undefined ? RECORDER_NAMES.has(n.executable) : n.id === node,
  );
  if (recorders.length !== 1)
    throw new UsageError(
      recorders.length === 0
        ? `stream ${definition.id} has no ${node === undefined ? 'recorder node' : `node ${node}`}.`
        : `stream ${definition.id} has several recorders (${recorders.map((n) => n.id).join(', ')}): name one with --node.`,
    );
  const recorder = recorders[0] as Definition['nodes'][number];
  return {
    streamId: definition.id,
    node: recorder.id,
    filename: fileName(recorder.config?.filename ?? '', recorder.config?.format),
  };
}

/** The recording stream named by --stream, or the one `record start` started. */
async function findTarget(
  client: ApiClient,
  streamId: string | undefined,
  node: string | undefined,
): Promise<Target> {
  if (streamId !== undefined) {
    const { stream } = await client.get<{ stream: Definition }>(streamPath(streamId));
    return recorderOf(stream, node);
  }
  const { streams } = await client.get<{
    streams: { id: string; state: string; meta?: { tags?: string[] } }[];
  }>('/stream/streams');
  const ours = streams.filter((s) => s.meta?.tags?.includes(RECORD_TAG) === true);
  if (ours.length === 0)
    throw new ApiError(0, {
      success: false,
      error: {
        code: 'not_found',
        message:
          "No recording started with 'headsetd record start' exists; name another stream with --stream ID.",
      },
    });
  if (ours.length > 1)
    throw new UsageError(
      `several recordings run (${ours.map((s) => s.id).join(', ')}): name one with --stream ID.`,
    );
  const { stream } = await client.get<{ stream: Definition }>(streamPath((ours[0] as { id: string }).id));
  return recorderOf(stream, node);
}

const start: Command = {
  name: 'record start',
  args: '[--name NAME] [--format bdf|edf|csv] [--channels LIST] [--rate HZ]',
  summary: "Record the headset's EEG to a file in the service's recordings.",
  help: `Options:
  --name NAME          the file name (default recording-YYYYMMDD-HHMMSS); the extension is added
  --format FORMAT      bdf (24-bit, the default), edf (16-bit) or csv
  --channels LIST      EEG electrodes, comma-separated or repeated (default: all 19)
  --rate HZ            sampling frequency (default: the device's)
Creates and starts a stream (eeg-source → recorder, tagged ${RECORD_TAG}) and prints its id and the
file name. With --json: {success, streamId, filename}.`,
  options: {
    name: { type: 'string' },
    format: { type: 'string' },
    channels: { type: 'string', multiple: true },
    rate: { type: 'string' },
  },
  async run({ client, out, values }) {
    const format = (stringOption(values, 'format') ?? 'bdf').toLowerCase();
    if (!FORMATS.includes(format))
      throw new UsageError(`--format: ${JSON.stringify(format)} is not one of ${FORMATS.join(', ')}.`);
    const name = stringOption(values, 'name') ?? defaultName();
    const channels = listOption(values, 'channels');
    const rate = stringOption(values, 'rate');
    // The global Web Crypto: Node's crypto module is loaded by the commands that use it only.
    const id = crypto.randomUUID();
    await client.post('/stream/streams', {
      json: {
        id,
        meta: { name: `Recording ${name}`, tags: [RECORD_TAG] },
        nodes: [
          {
            id: 'eeg',
            executable: 'eeg-source',
            config: {
              ...(channels === undefined ? {} : { channels }),
              ...(rate === undefined ? {} : { samplingFrequency: Number(rate) }),
            },
          },
          { id: 'recorder', executable: 'recorder', config: { filename: name, format } },
        ],
        pipes: [{ id: 'eeg-to-recorder', source: 'eeg', destination: 'recorder', policy: 'block' }],
      },
    });
    try {
      await client.post(streamPath(id, '/signal'), { json: { signal: 'start' } });
    } catch (error) {
      // A recording that did not start leaves nothing behind.
      await client.request('DELETE', streamPath(id)).catch(() => undefined);
      throw error;
    }
    const filename = fileName(name, format);
    if (out.json) {
      out.document({ success: true, streamId: id, filename });
      return 0;
    }
    out.line(`recording to ${filename} (stream ${id})`);
    out.note('mark it with: headsetd record mark TEXT; stop it with: headsetd record stop');
    return 0;
  },
};

const stop: Command = {
  name: 'record stop',
  args: '[--stream ID]',
  summary: "Stop the recording 'record start' started (or the stream --stream names).",
  help: `Options:
  --stream ID   the recording's stream (default: the one 'headsetd record start' started)
The stream of 'record start' is removed; one named with --stream is only stopped. The file stays:
'headsetd recordings list' shows it, with its segments if the recording was split.
With --json: {success, streamId, recordings: [...]}, the files of this recording.`,
  options: { stream: { type: 'string' } },
  async run({ client, out, values }) {
    const named = stringOption(values, 'stream');
    const target = await findTarget(client, named, undefined);
    const { status } = await client.get<{ status: { state: string } }>(
      streamPath(target.streamId, '/status'),
    );
    if (status.state !== 'stopped' && status.state !== 'created')
      await client.post(streamPath(target.streamId, '/signal'), { json: { signal: 'stop' } });
    if (named === undefined) await client.request('DELETE', streamPath(target.streamId));
    const base = target.filename.replace(/\.(edf|bdf|csv)$/i, '');
    const { recordings } = await client.get<{ recordings: Recording[] }>('/system/recordings');
    const files = recordings.filter(
      (r) =>
        r.name === target.filename ||
        (r.name.startsWith(`${base}-`) && /^-\d+\.\w+$/.test(r.name.slice(base.length))),
    );
    if (out.json) {
      out.document({ success: true, streamId: target.streamId, recordings: files });
      return 0;
    }
    out.line(`recording stopped: ${target.filename}`);
    if (files.length > 0) {
      out.line();
      for (const line of table(files, recordingColumns, (t) => out.style('bold', t))) out.line(line);
    }
    return 0;
  },
};

const mark: Command = {
  name: 'record mark',
  args: 'TEXT [--stream ID] [--node NODE]',
  summary: 'Put a marker into the recording, at the sample it arrives.',
  help: `Options:
  --stream ID   the recording's stream (default: the one 'headsetd record start' started)
  --node NODE   its recorder node, when it has several
The marker is an annotation of the file (EDF+/BDF+, or the .events.csv beside a CSV).
With --json: the API answer {id, streamId, signal, success}.`,
  options: { stream: { type: 'string' }, node: { type: 'string' } },
  positionals: { min: 1, max: 1 },
  async run({ client, out, values, positionals }) {
    const text = positionals[0] ?? '';
    const target = await findTarget(client, stringOption(values, 'stream'), stringOption(values, 'node'));
    const answer = await client.post(
      streamPath(target.streamId, `/nodes/${encodeURIComponent(target.node)}/signal`),
      { json: { signal: 'marker', text } },
    );
    if (out.json) {
      out.document(answer);
      return 0;
    }
    out.line(`marked ${JSON.stringify(text)} in ${target.filename}`);
    return 0;
  },
};

export const recordGroup: Group = {
  name: 'record',
  summary: "record the headset's EEG to a file, mark events in it, stop it",
  commands: [start, stop, mark],
};

/**
 * What the end-to-end tests of the live devices (Cyton, LSL) share: the service's system events
 * as a WebSocket client gets them, the stream eeg-source → recorder (BDF+) and, in parallel,
 * eeg-source → Butterworth band-pass → websocket, and scipy's `butter` + `sosfilt` (Debian's
 * python3-scipy) as the oracle of the filtered values.
 */
import WebSocket from 'ws';
import { FrameClient } from '../runtime/helpers.js';
import type { EdflibResult } from './edf-check.js';
import { runPythonScript } from './python.js';
import { json, type Service } from './service.js';
import { eventually } from './wait.js';

export interface SystemEvent {
  type: string;
  eventType?: string;
  level?: string;
  message?: string;
  [key: string]: unknown;
}

/** A client of WebSocket /system/events that keeps every event. */
export class EventClient {
  readonly events: SystemEvent[] = [];
  private constructor(readonly socket: WebSocket) {
    socket.on('message', (raw: Buffer) => {
      this.events.push(JSON.parse(raw.toString('utf8')) as SystemEvent);
    });
  }

  static async connect(service: Service): Promise<EventClient> {
    const socket = new WebSocket(`${service.url.replace('http', 'ws')}/system/events`);
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    return new EventClient(socket);
  }

  /** The system events of that kind (`samples_lost`, `device_lost`, ...), in order. */
  of(kind: string): SystemEvent[] {
    return this.events.filter((e) => e.eventType === kind || e.type === kind);
  }

  close(): void {
    this.socket.terminate();
  }
}

/** The band-pass of the tests' websocket branch. */
export const BAND = { highpass: 1, lowpass: 40, order: 4 } as const;

/**
 * Creates and starts the stream `id`: eeg → rec (BDF+, `filename`) and eeg → bp → ws; resolves
 * with a client of the websocket node once it is connected.
 */
export async function startRecordingStream(
  service: Service,
  id: string,
  filename: string,
  recorder: Record<string, unknown> = {},
): Promise<FrameClient> {
  const created = await json(`${service.url}/stream/streams`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      id,
      meta: { name: 'live device end to end' },
      nodes: [
        { id: 'eeg', executable: 'eeg-source' },
        { id: 'rec', executable: 'recorder', config: { filename, format: 'bdf', ...recorder } },
        { id: 'bp', executable: 'filter', config: BAND },
        { id: 'ws', executable: 'websocket', config: { port: 0 } },
      ],
      pipes: [
        { id: 'p1', source: 'eeg', destination: 'rec', policy: 'block' },
        { id: 'p2', source: 'eeg', destination: 'bp', policy: 'block' },
        { id: 'p3', source: 'bp', destination: 'ws', policy: 'block' },
      ],
    }),
  });
  if (created.status !== 200) throw new Error(`stream not created: ${JSON.stringify(created.body)}`);
  // The websocket node's port is known once the stream runs; connect before any sample matters.
  await signalStream(service, id, 'start');
  const port = await websocketPort(service, id);
  return FrameClient.connect(port);
}

/** The port of a running stream's websocket node `ws`, once the node has bound it. */
export function websocketPort(service: Service, id: string): Promise<number> {
  return eventually(
    async () => {
      const status = await json(`${service.url}/stream/streams/${id}/status`);
      return (status.body.status.nodes as { id: string; port?: number }[]).find((n) => n.id === 'ws')?.port;
    },
    20_000,
    "the websocket node's port",
  );
}

export async function signalStream(service: Service, id: string, signal: string): Promise<void> {
  const answer = await json(`${service.url}/stream/streams/${id}/signal`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ signal }),
  });
  if (answer.status !== 200) throw new Error(`signal ${signal}: ${JSON.stringify(answer.body)}`);
}

/** Samples the recorder node has written so far (its metrics). */
export async function recordedSamples(service: Service, id: string): Promise<number> {
  const status = await json(`${service.url}/stream/streams/${id}/status`);
  const rec = (status.body.status.nodes as { id: string; metrics: { samplesProcessed: number } }[]).find(
    (n) => n.id === 'rec',
  );
  return rec?.metrics.samplesProcessed ?? 0;
}

/**
 * The samples a BDF+ file really holds, per signal: those before its `Recording ends` annotation
 * when the last record was padded with each channel's last value; every record's when the samples
 * filled whole records (the writer then pads nothing and marks no end: one run in a few stops on a
 * record's boundary).
 */
export function recordedRows(file: EdflibResult): number {
  const rate = signalRate(file);
  const end = file.annotations.find((a) => a.text === 'Recording ends');
  if (end === undefined) return file.datarecords * (file.signals[0]?.samplesPerRecord ?? 0);
  return Math.round((end.onset / 1e7) * rate);
}

/** The sample rate of the file's first signal (EDFlib gives the record duration in 100 ns ticks). */
export function signalRate(file: EdflibResult): number {
  return (file.signals[0]?.samplesPerRecord ?? 0) / (file.datarecordDuration / 1e7);
}

/** The sample index of each annotation (EDFlib gives onsets in 100 ns ticks from the first sample). */
export function annotationSamples(file: EdflibResult, rate: number): { sample: number; text: string }[] {
  return file.annotations.map((a) => ({ sample: Math.round((a.onset / 1e7) * rate), text: a.text }));
}

/**
 * scipy's `sosfilt(butter(order, [highpass, lowpass], 'bandpass', fs=rate, output='sos'), x)` of
 * each column of `rows`, from a zero state (the filter's state after a discontinuity).
 */
export async function scipyBandpass(rows: number[][], rate: number): Promise<number[][]> {
  const script = `
import json, sys
import numpy as np
from scipy.signal import butter, sosfilt
args = json.load(sys.stdin)
sos = butter(args['order'], [args['highpass'], args['lowpass']], 'bandpass', fs=args['rate'], output='sos')
x = np.array(args['rows'], dtype=np.float64)
json.dump(sosfilt(sos, x, axis=0).tolist(), sys.stdout)
`;
  const run = await runPythonScript(script, [], JSON.stringify({ ...BAND, rate, rows }));
  return JSON.parse(run.stdout) as number[][];
}

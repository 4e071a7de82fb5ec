/**
 * The `reference` and `epoch` built-ins on the real service, fed by the replay device playing a
 * real oddball recording (test/fixtures/eeg/eeglab_p300.edf): the service turns each of the file's
 * annotations into an `annotate` signal to the stream's epoch node (replay-markers.ts), and the
 * epochs a WebSocket client receives around the first stimuli equal MNE's on the same file
 * (`set_eeg_reference('average')`, `pick`, `mne.Epochs`), sample for sample (≤ 1e-6 relative).
 */
import { runPythonScript } from '../support/python.js';
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { createReplayHeadset, ManualClock } from '../../src/device/replay/index.js';
import { fixture } from '../formats/fixtures.js';
import { relativeError } from '../support/mne-erp.js';
import { json, type Service, startService } from '../support/service.js';
import { eventually } from '../support/wait.js';

const FILE = fixture('eeglab_p300.edf');
const STREAM = '3c9b2f1e-6a4d-4e8b-9c2f-7d1e5a3b9c04';
const EPOCHS = 2;

interface EpochFrame {
  timestamp: number;
  sampleRate: number;
  channels: string[];
  data: number[][];
  marker?: { text: string; timestamp: number };
}

const MNE = String.raw`
import json, sys, warnings
warnings.simplefilter("ignore")
import mne
mne.set_log_level("ERROR")
path, labels, count = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
raw = mne.io.read_raw_edf(path, preload=True).pick(labels)
raw.set_eeg_reference("average", projection=False)
raw.pick(["Pz", "Cz", "Fz"])
events, ids = mne.events_from_annotations(raw)
squares = events[events[:, 2] == ids["square"]][:count]
epochs = mne.Epochs(raw, squares, tmin=-0.1, tmax=0.4, baseline=(None, 0), preload=True, proj=False)
print(json.dumps({"samples": squares[:, 0].tolist(),
                  "epochs": [(e.T * 1e6).ravel().tolist() for e in epochs.get_data()]}))
`;

let service: Service;
beforeAll(async () => {
  service = await startService({ args: ['--device', `replay:${FILE}`] });
});
afterAll(async () => {
  await service.stop();
});

test('epochs of the replayed stimuli reach a WebSocket client equal to MNE’s', async () => {
  const created = await json(`${service.url}/stream/streams`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      id: STREAM,
      meta: { name: 'replayed epochs' },
      nodes: [
        { id: 'eeg', executable: 'eeg-source' },
        { id: 'ref', executable: 'reference', config: { reference: 'average', pick: ['pz', 'CZ', 'Fz'] } },
        {
          id: 'epochs',
          executable: 'epoch',
          config: { tmin: -0.1, tmax: 0.4, baseline: [null, 0], markers: ['square'] },
        },
        { id: 'ws', executable: 'websocket', config: { port: 0 } },
      ],
      pipes: [
        { id: 'p1', source: 'eeg', destination: 'ref' },
        { id: 'p2', source: 'ref', destination: 'epochs' },
        { id: 'p3', source: 'epochs', destination: 'ws' },
      ],
    }),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  // The websocket serves from its start; the replay starts playing when the eeg-source starts.
  const started = await json(`${service.url}/stream/streams/${STREAM}/signal`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ signal: 'start' }),
  });
  expect(started.body).toEqual({ id: STREAM, success: true });
  const port = await eventually(async () => {
    const status = await json(`${service.url}/stream/streams/${STREAM}/status`);
    return (status.body.status.nodes as { id: string; port?: number }[]).find((n) => n.id === 'ws')?.port;
  });
  const socket = new WebSocket(`ws://127.0.0.1:${port}`);
  const received: EpochFrame[] = [];
  await new Promise<void>((resolve, reject) => {
    socket.on('message', (data: Buffer) => {
      received.push(JSON.parse(data.toString()) as EpochFrame);
      if (received.length === EPOCHS) resolve();
    });
    socket.once('error', reject);
  });
  socket.close();

  // The channels the replay plays, by their labels in the file (MNE knows the file's labels).
  const headset = createReplayHeadset(FILE, { clock: new ManualClock() });
  const labels = headset.recording.channels.map((c) => c.label);
  await headset.close();
  // A few more than received: on a slow machine the stream may start after the first marker.
  const run = await runPythonScript(MNE, [FILE, JSON.stringify(labels), String(EPOCHS + 4)]);
  const mne = JSON.parse(run.stdout) as { samples: number[]; epochs: number[][] };

  const rate = received[0]?.sampleRate ?? 0;
  expect(rate).toBe(128);
  // Each epoch is MNE's epoch of the same stimulus: consecutive stimuli, in order.
  const matched = received.map((frame) =>
    mne.epochs.findIndex((epoch) => relativeError(frame.data.flat(), epoch) <= 1e-6),
  );
  expect(matched[0]).toBeGreaterThanOrEqual(0);
  expect(matched).toEqual(received.map((_, k) => (matched[0] ?? 0) + k));
  for (const frame of received) {
    expect(frame.marker?.text).toBe('square');
    expect(frame.channels).toEqual(['Pz', 'Cz', 'Fz']);
    // round(-0.1 × 128) = -13 to round(0.4 × 128) = 51: 65 samples from 13 before the marker.
    expect(frame.data).toHaveLength(65);
    expect((frame.marker?.timestamp ?? 0) - frame.timestamp).toBeCloseTo((13 * 1000) / rate, 6);
  }
  // The markers sit at the file's samples: the second stimulus is that many samples after the first.
  const apart =
    ((received[1]?.marker?.timestamp ?? 0) - (received[0]?.marker?.timestamp ?? 0)) * (rate / 1000);
  const first = matched[0] ?? 0;
  expect(apart).toBeCloseTo((mne.samples[first + 1] ?? 0) - (mne.samples[first] ?? 0), 6);
});

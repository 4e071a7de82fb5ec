/**
 * A real oddball recording through the `epoch` built-in: EEGLAB's tutorial data (a visual
 * selective-attention task, kept as test/fixtures/eeg/eeglab_p300.edf, its provenance in the
 * README there) is played by the replay device, each of its markers reaches the node as the
 * service delivers them (an `annotate` signal at the marker's time, replay-markers.ts), and the
 * epochs around every stimulus (`square`) are averaged. The average shows the late positive
 * component the task evokes (P300: positive at Pz, peaking between 250 and 500 ms), and every
 * epoch, which epochs are rejected, and the average equal MNE's `mne.Epochs(...).average()` on the
 * same file and events (≤ 1e-6 relative; the replay hands float32 samples to the node).
 */
import { afterEach, expect, test } from 'vitest';
import type { Frame } from '../../src/core/frame.js';
import { createReplayHeadset, ManualClock, type ReplayHeadset } from '../../src/device/replay/index.js';
import { createEpoch } from '../../src/streams/executables/epoch.js';
import { fixture } from '../formats/fixtures.js';
import { recordingContext } from '../sdk/fake-node-context.js';
import { relativeError } from '../support/mne-erp.js';
import { runPythonScript } from '../support/python.js';

const FILE = fixture('eeglab_p300.edf');
const CONFIG = { tmin: -0.2, tmax: 0.8, baseline: [null, 0], markers: ['square'], reject: 150 };

const MNE_EVOKED = String.raw`
import json, sys, warnings
warnings.simplefilter("ignore")
import numpy as np
import mne
mne.set_log_level("ERROR")
path, labels = sys.argv[1], json.loads(sys.argv[2])
raw = mne.io.read_raw_edf(path, preload=True).pick(labels)
events, ids = mne.events_from_annotations(raw)
epochs = mne.Epochs(raw, events, event_id=ids["square"], tmin=-0.2, tmax=0.8, baseline=(None, 0),
                    reject=dict(eeg=150e-6), preload=True, proj=False)
evoked = epochs.average()
print(json.dumps({"squares": int((events[:, 2] == ids["square"]).sum()),
                  "kept": [int(events[i, 0]) for i in epochs.selection],
                  "times": evoked.times.tolist(),
                  "epochs": [(e.T * 1e6).ravel().tolist() for e in epochs.get_data()],
                  "evoked": (evoked.data.T * 1e6).ravel().tolist()}))
`;

let headset: ReplayHeadset | undefined;
afterEach(async () => {
  await headset?.close();
  headset = undefined;
});

test('epochs of a replayed oddball recording average to a P300 at Pz, equal to MNE', async () => {
  const clock = new ManualClock();
  headset = createReplayHeadset(FILE, { clock });
  const rate = headset.recording.sampleRate;
  const rc = recordingContext(CONFIG);
  const node = createEpoch(rc.context);
  await node.start();
  let first: number | undefined;
  headset.eeg.onFrame((frame: Frame) => {
    first ??= frame.timestamp;
    node.onFrame?.('in', frame);
  });
  headset.onEvent((event) => {
    if (event.type === 'marker') node.signal?.('annotate', { text: event.data.text, onset: event.timestamp });
  });
  await headset.eeg.start('client');
  clock.advance((headset.recording.samples / rate) * 1000);
  await headset.eeg.stop('client');

  const labels = headset.recording.channels.map((c) => c.label);
  const run = await runPythonScript(MNE_EVOKED, [FILE, JSON.stringify(labels)]);
  const mne = JSON.parse(run.stdout) as {
    squares: number;
    kept: number[];
    times: number[];
    epochs: number[][];
    evoked: number[];
  };

  // The same epochs kept, each at the same sample, with the same samples.
  const epochs = rc.emitted.map((e) => e.frame);
  const samplesOf = (frame: Frame) =>
    Math.round((((frame.marker?.timestamp ?? 0) - (first ?? 0)) * rate) / 1000);
  expect(epochs.map(samplesOf)).toEqual(mne.kept);
  expect(mne.kept.length).toBeGreaterThan(40);
  expect(mne.kept.length).toBeLessThan(mne.squares); // some are rejected
  const counts = rc.info.epochs as { markers: number; emitted: number; rejected: number; incomplete: number };
  expect(counts).toEqual({
    markers: mne.squares,
    emitted: mne.kept.length,
    rejected: mne.squares - mne.kept.length,
    incomplete: 0,
  });
  for (const [k, frame] of epochs.entries()) {
    expect(frame.marker?.text).toBe('square');
    expect(relativeError(frame.data, mne.epochs[k] as number[])).toBeLessThanOrEqual(1e-6);
  }

  // The average of the node's epochs, as a user of its frames computes it.
  const width = headset.recording.channels.length;
  const average = new Float64Array(mne.times.length * width);
  for (const frame of epochs)
    frame.data.forEach((v, i) => (average[i] = (average[i] ?? 0) + v / epochs.length));
  expect(relativeError(average, mne.evoked)).toBeLessThanOrEqual(1e-6);

  // The P300: at Pz, the largest value from 250 to 500 ms is positive, well above the baseline's
  // spread, and it is the largest of the whole epoch after 100 ms.
  const pz = labels.indexOf('Pz');
  const at = (i: number) => average[i * width + pz] as number;
  const window = mne.times.flatMap((t, i) => (t >= 0.25 && t <= 0.5 ? [i] : []));
  const peak = window.reduce((best, i) => (at(i) > at(best) ? i : best));
  const baseline = mne.times.flatMap((t, i) => (t <= 0 ? [Math.abs(at(i))] : []));
  expect(at(peak)).toBeGreaterThan(10);
  expect(at(peak)).toBeGreaterThan(5 * Math.max(...baseline));
  const late = mne.times.flatMap((t, i) => (t > 0.1 ? [at(i)] : []));
  expect(at(peak)).toBe(Math.max(...late));
  expect(mne.times[peak]).toBeGreaterThanOrEqual(0.25);
  expect(mne.times[peak]).toBeLessThanOrEqual(0.5);
});

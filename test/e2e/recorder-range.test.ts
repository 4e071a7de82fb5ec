/**
 * `range` through a real worker: device frames (ADC full scale at gain 24) cross the thread
 * boundary to eeg-source and become the recording's physical range (±187 500 µV, BDF), and a
 * filter between generator and recorder widens the range by its ‖h‖₁. The file's labels are in
 * 10-20 case, so MNE places them on its standard montage.
 */
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { adcFullScaleMicrovolts } from '../../src/device/adc.js';
import { designFilter } from '../../src/dsp/design.js';
import { resamplerL1, sosL1Norm } from '../../src/streams/executables/frame-range.js';
import { tidyUp } from '../../src/streams/executables/recorder-range.js';
import type { Frame } from '../../src/core/frame.js';
import type { DeviceFeed } from '../../src/core/node.js';
import { ListenerSet } from '../../src/core/listener-set.js';
import { WorkerRuntime } from '../../src/streams/runtime/worker-runtime.js';
import { STREAM_HOST } from '../support/stream-host.js';
import { readEdf } from '../recordings/support.js';
import { definition, pipe } from '../runtime/helpers.js';
import { edflibCheck } from '../support/edf-check.js';
import { mneStandardMontage } from '../support/mne-check.js';
import { eventually } from '../support/wait.js';
import { scratchDir } from '../support/scratch.js';

const dataDir = scratchDir('headsetd-recorder-range');
const recordings = path.join(dataDir, 'recordings');
let runtime: WorkerRuntime | undefined;

afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

/** A device sending 250 Hz frames of 10 samples with the range of gain 24. */
function fakeDevice(): DeviceFeed {
  const listeners = new ListenerSet<Frame>();
  return {
    open(request) {
      let seq = 0;
      const start = Date.now();
      const timer = setInterval(() => {
        const data = new Float32Array(10 * request.channels.length).map((_, i) => 150_000 * Math.sin(i / 7));
        const frame: Frame = {
          seq,
          timestamp: start + seq * 40,
          sampleRate: 250,
          channels: request.channels,
          data,
          range: adcFullScaleMicrovolts(24),
        };
        seq++;
        listeners.emit(frame);
      }, 40);
      return Promise.resolve({
        channels: request.channels,
        close: () => {
          clearInterval(timer);
        },
      });
    },
    onFrame: (listener) => listeners.add(listener),
  };
}

describe('range through the runtime', () => {
  test('device → eeg-source → recorder: BDF physical range is the ADC full scale', async () => {
    runtime = new WorkerRuntime({
      workerEntry: STREAM_HOST,
      dataDir,
      executablesDirs: [],
      device: fakeDevice(),
    });
    const stream = definition(
      [
        { id: 'eeg', executable: 'eeg-source', config: { channels: ['Cz', 'Pz'] } },
        { id: 'rec', executable: 'recorder', config: { filename: 'device', format: 'bdf' } },
      ],
      [pipe('p', 'eeg', 'rec', { policy: 'block' })],
    );
    await runtime.start(stream);
    const rt = runtime;
    await eventually(() => (rt.status(stream.id)?.nodes.rec?.metrics.samplesProcessed ?? 0) >= 300);
    await rt.stop(stream.id);
    const edf = readEdf(path.join(recordings, 'device.bdf'));
    // The frames carry the API's upper-case names; the file has 10-20 case, which MNE's montage needs.
    expect(edf.labels).toEqual(['Cz', 'Pz']);
    const montage = await mneStandardMontage(path.join(recordings, 'device.bdf'));
    expect(montage.error).toBe('');
    expect(montage.positioned).toEqual(['Cz', 'Pz']);
    expect(edf.physicalMax).toEqual([187_500, 187_500]);
    // 24-bit steps of 2 × 187 500 / (2^24 − 1) µV: 0.022 µV.
    expect(edf.halfStep[0]! * 2).toBeCloseTo(0.02235, 5);
    expect(edflibCheck(path.join(recordings, 'device.bdf'), { samples: false }).ok).toBe(true);
  });

  test('eeg-source converting 250 → 500 Hz widens the range by the converter’s bound', async () => {
    runtime = new WorkerRuntime({
      workerEntry: STREAM_HOST,
      dataDir,
      executablesDirs: [],
      device: fakeDevice(),
    });
    const stream = definition(
      [
        { id: 'eeg', executable: 'eeg-source', config: { channels: ['O1'], samplingFrequency: 500 } },
        { id: 'rec', executable: 'recorder', config: { filename: 'converted', format: 'bdf' } },
      ],
      [pipe('p', 'eeg', 'rec', { policy: 'block' })],
    );
    await runtime.start(stream);
    const rt = runtime;
    await eventually(() => (rt.status(stream.id)?.nodes.rec?.metrics.samplesProcessed ?? 0) >= 600);
    await rt.stop(stream.id);
    const edf = readEdf(path.join(recordings, 'converted.bdf'));
    expect(edf.rate).toBe(500);
    expect(edf.physicalMax).toEqual([tidyUp(187_500 * resamplerL1(250, 500))]);
  });

  test('generator → filter → recorder: physical range = Σ|amplitudes| × ‖h‖₁, rounded up', async () => {
    runtime = new WorkerRuntime({ workerEntry: STREAM_HOST, dataDir, executablesDirs: [] });
    const stream = definition(
      [
        {
          id: 'gen',
          executable: 'signal-generator',
          config: { sampleRate: 250, amplitudes: [80, 20], frequencies: [10, 60] },
        },
        { id: 'bp', executable: 'filter', config: { highpass: 1, lowpass: 40, order: 4 } },
        { id: 'rec', executable: 'recorder', config: { filename: 'filtered', format: 'edf' } },
      ],
      [pipe('p1', 'gen', 'bp'), pipe('p2', 'bp', 'rec', { policy: 'block' })],
    );
    await runtime.start(stream);
    const rt = runtime;
    await eventually(() => (rt.status(stream.id)?.nodes.rec?.metrics.samplesProcessed ?? 0) >= 300);
    await rt.stop(stream.id);
    const expected = tidyUp(100 * sosL1Norm(designFilter({ highpass: 1, lowpass: 40, order: 4 }, 250)));
    expect(expected).toBeGreaterThan(300);
    expect(readEdf(path.join(recordings, 'filtered.edf')).physicalMax).toEqual([expected]);
  });
});

/**
 * A filter (or band-power, resample) impossible at a sample rate known before the stream runs is
 * refused when the stream is created or edited, pointing at the node's config field; a resample or
 * band-power passes its own output rate on to the nodes after it. It used to be accepted: the filter went
 * to `error` on its first frame while the stream read running and every frame through it was lost.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ControlPlane, controlPlane } from '../support/control-plane.js';
import { chainStream, expectError, json, ok, OTHER_ID } from './helpers.js';

const ID = OTHER_ID;

let cp: ControlPlane;
beforeEach(async () => {
  cp = await controlPlane();
});
afterEach(async () => {
  await cp.close();
});

/** gen (signal-generator at 250 Hz) → filt → log, the filter's config replaced. */
function withFilter(config: Record<string, unknown>) {
  const stream = chainStream(ID);
  stream.nodes[1]!.config = config;
  return stream;
}

describe('create', () => {
  it('refuses a lowpass above Nyquist after a 250 Hz source, pointing at the filter field', async () => {
    const error = expectError(
      await json(cp, 'POST', '/stream/streams', withFilter({ lowpass: 200 })),
      422,
      'validation_failed',
    );
    expect(error.error.details).toMatchObject({ path: '/nodes/1/config/lowpass' });
    expect(error.error.message).toContain(
      "lowpass 200 Hz is at or above the Nyquist frequency (125 Hz) of its 250 Hz input; use a frequency below 125 Hz (the rate of node 'gen')",
    );
    expectError(await json(cp, 'GET', `/stream/streams/${ID}`), 404, 'stream_not_found');
  });

  it('checks highpass and notch too, and a filter behind another filter', async () => {
    const stream = withFilter({ highpass: 1 });
    stream.nodes.splice(2, 0, { id: 'notch', executable: 'filter', config: { notch: 130 } });
    stream.pipes[1] = { id: 'p2', source: 'filt', destination: 'notch' };
    stream.pipes.push({ id: 'p3', source: 'notch', destination: 'log' });
    const notch = expectError(await json(cp, 'POST', '/stream/streams', stream), 422, 'validation_failed');
    expect(notch.error.details).toMatchObject({ path: '/nodes/2/config/notch' });
    const high = expectError(
      await json(cp, 'POST', '/stream/streams', withFilter({ highpass: 125 })),
      422,
      'validation_failed',
    );
    expect(high.error.details).toMatchObject({ path: '/nodes/1/config/highpass' });
  });

  it('refuses a band-power band above Nyquist or a window shorter than its segment, pointing at the key', async () => {
    const bandPower = (config: Record<string, unknown>) => {
      const stream = chainStream(ID);
      stream.nodes[1] = { id: 'filt', type: 'EXECUTABLE', executable: 'band-power', config };
      return stream;
    };
    const band = expectError(
      await json(
        cp,
        'POST',
        '/stream/streams',
        bandPower({ bands: [{ name: 'high', low: 100, high: 130 }] }),
      ),
      422,
      'validation_failed',
    );
    expect(band.error.details).toMatchObject({ path: '/nodes/1/config/bands/0/high' });
    expect(band.error.message).toContain("band 'high' ends at 130 Hz, above the Nyquist frequency (125 Hz)");
    const segment = expectError(
      await json(cp, 'POST', '/stream/streams', bandPower({ window: 0.5, segment: 1 })),
      422,
      'validation_failed',
    );
    expect(segment.error.details).toMatchObject({ path: '/nodes/1/config/segment' });
    ok(await json(cp, 'POST', '/stream/streams', bandPower({})));
  });

  it("checks a filter after a resample at the resample's output rate", async () => {
    const stream = withFilter({ lowpass: 60 });
    stream.nodes.splice(1, 0, {
      id: 'down',
      type: 'EXECUTABLE',
      executable: 'resample',
      config: { sampleRate: 100 },
    });
    stream.pipes[0] = { id: 'p1', source: 'gen', destination: 'down' };
    stream.pipes.push({ id: 'p3', source: 'down', destination: 'filt' });
    const error = expectError(await json(cp, 'POST', '/stream/streams', stream), 422, 'validation_failed');
    expect(error.error.details).toMatchObject({ path: '/nodes/2/config/lowpass' });
    expect(error.error.message).toContain(
      "of its 100 Hz input; use a frequency below 50 Hz (the rate of node 'down')",
    );
  });

  it('takes the rate of an eeg-source from samplingFrequency; without it (the device decides) it is not checked', async () => {
    const stream = withFilter({ lowpass: 200 });
    stream.nodes[0] = {
      id: 'gen',
      type: 'EXECUTABLE_PRODUCER',
      executable: 'eeg-source',
      config: { samplingFrequency: 250 },
    };
    const error = expectError(await json(cp, 'POST', '/stream/streams', stream), 422, 'validation_failed');
    expect(error.error.details).toMatchObject({ path: '/nodes/1/config/lowpass' });
    stream.nodes[0].config = {};
    ok(await json(cp, 'POST', '/stream/streams', stream));
  });

  it('accepts a filter below Nyquist', async () => {
    ok(await json(cp, 'POST', '/stream/streams', withFilter({ highpass: 1, lowpass: 124, notch: 50 })));
  });
});

describe('edits', () => {
  it('refuses a PUT and a node addition that would filter above Nyquist', async () => {
    ok(await json(cp, 'POST', '/stream/streams', chainStream(ID)));
    const put = expectError(
      await json(cp, 'PUT', `/stream/streams/${ID}`, withFilter({ lowpass: 130 })),
      422,
      'validation_failed',
    );
    expect(put.error.details).toMatchObject({ path: '/nodes/1/config/lowpass' });
    ok(
      await json(cp, 'POST', `/stream/streams/${ID}/nodes`, [
        { id: 'f2', executable: 'filter', config: { lowpass: 300 } },
      ]),
    );
    const pipe = expectError(
      await json(cp, 'POST', `/stream/streams/${ID}/pipes`, [{ id: 'p9', source: 'gen', destination: 'f2' }]),
      422,
      'validation_failed',
    );
    // The defect lies in the stream's node, not in the pipe sent: the pointer is into the stream.
    expect(pipe.error.details).toMatchObject({ path: '/nodes/3/config/lowpass' });
  });
});

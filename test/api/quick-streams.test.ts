/**
 * Quick EEG streams through the API (inject, FakeRuntime): POST /stream/start builds and starts a
 * real stream definition, /data serves the ring buffer, /status the figures, /stop stops; every
 * error is the envelope with the right code and pointer.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { FakeRuntime } from '../support/fake-runtime.js';
import { expectError, json, ok, text } from './helpers.js';
import { type QuickPlane, quickPlane, testFrame } from './quick-streams-helpers.js';

let cp: QuickPlane;

afterEach(async () => {
  await cp.close();
});

interface StartAnswer {
  success: true;
  streamId: string;
  status: string;
  config: Record<string, unknown>;
}

async function start(body: unknown): Promise<StartAnswer> {
  return ok<StartAnswer>(await json(cp, 'POST', '/stream/start', body));
}

describe('POST /stream/start', () => {
  test('creates and starts eeg-source → filter → tap, tagged and visible in the stream list', async () => {
    cp = await quickPlane();
    const answer = await start({
      sampleRate: 500,
      channels: ['Cz', 'o1', 'FP2'],
      filters: { highpass: 1, lowpass: 40, notch: 50 },
      metadata: { subject: 'S01' },
    });
    expect(answer.success).toBe(true);
    expect(answer.status).toBe('running');
    expect(answer.streamId).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.config).toEqual({
      source: 'eeg',
      sampleRate: 500,
      channels: ['Cz', 'O1', 'Fp2'],
      filters: { highpass: 1, lowpass: 40, notch: 50 },
      bufferSize: 5000,
      metadata: { subject: 'S01' },
    });
    expect(cp.runtime.ops(answer.streamId)).toEqual(['start']);
    const list = ok<{ streams: { id: string; meta: { tags?: string[] } }[] }>(
      await json(cp, 'GET', '/stream/streams'),
    );
    expect(list.streams.find((s) => s.id === answer.streamId)?.meta.tags).toEqual(['quick-stream']);
    const read = ok<{
      stream: { nodes: { id: string; executable: string; config: unknown }[]; pipes: unknown[] };
    }>(await json(cp, 'GET', `/stream/streams/${answer.streamId}`));
    expect(read.stream.nodes.map((n) => [n.id, n.executable])).toEqual([
      ['source', 'eeg-source'],
      ['filter', 'filter'],
      ['tap', 'tap'],
    ]);
    expect(read.stream.nodes[0]?.config).toEqual({ channels: ['Cz', 'O1', 'Fp2'], samplingFrequency: 500 });
    expect(read.stream.nodes[1]?.config).toEqual({ highpass: 1, lowpass: 40, notch: 50 });
    expect(read.stream.pipes).toHaveLength(2);
  });

  test('without filters there is no filter node; defaults: 250 Hz, all 19 EEG channels, 10 s buffer', async () => {
    cp = await quickPlane();
    const answer = await start({ filters: { highpass: null } });
    expect(answer.config).toMatchObject({ sampleRate: 250, bufferSize: 2500, filters: {} });
    expect(answer.config.channels).toHaveLength(19);
    const read = ok<{ stream: { nodes: { executable: string }[] } }>(
      await json(cp, 'GET', `/stream/streams/${answer.streamId}`),
    );
    expect(read.stream.nodes.map((n) => n.executable)).toEqual(['eeg-source', 'tap']);
  });

  test('accepts YAML and a comma list of channels; source ingest makes an ingest node', async () => {
    cp = await quickPlane();
    const response = await text(
      cp,
      'POST',
      '/stream/start',
      'source: ingest\nchannels: cz, pz\nbufferSize: 10\n',
    );
    const answer = ok<StartAnswer>(response);
    expect(answer.config).toMatchObject({ source: 'ingest', channels: ['Cz', 'Pz'], bufferSize: 10 });
    const read = ok<{ stream: { nodes: { executable: string; config: unknown }[] } }>(
      await json(cp, 'GET', `/stream/streams/${answer.streamId}`),
    );
    expect(read.stream.nodes[0]).toMatchObject({
      executable: 'ingest',
      config: { channels: ['Cz', 'Pz'], sampleRate: 250 },
    });
  });

  test.each([
    [{ foo: 1 }, 400, 'invalid_request', '/foo'],
    [{ sampleRate: 'fast' }, 400, 'invalid_request', '/sampleRate'],
    [{ filters: { bandstop: 3 } }, 400, 'invalid_request', '/filters/bandstop'],
    [{ channels: [1] }, 400, 'invalid_request', '/channels/0'],
    [{ bufferSize: 2.5 }, 400, 'invalid_request', '/bufferSize'],
    [{ sampleRate: 300 }, 422, 'validation_failed', '/sampleRate'],
    [{ channels: ['Cz', 'XX'] }, 422, 'validation_failed', '/channels/1'],
    [{ channels: ['Cz', 'CZ'] }, 422, 'validation_failed', '/channels/1'],
    [{ channels: ['CMS'] }, 422, 'validation_failed', '/channels/0'],
    [{ channels: [] }, 422, 'validation_failed', '/channels'],
    [{ filters: { highpass: 40, lowpass: 10 } }, 422, 'validation_failed', '/filters/highpass'],
    [{ filters: { lowpass: 125 } }, 422, 'validation_failed', '/filters/lowpass'],
    [{ filters: { notch: -50 } }, 422, 'validation_failed', '/filters/notch'],
    [{ bufferSize: 0 }, 422, 'validation_failed', '/bufferSize'],
    [{ bufferSize: 10_000_000 }, 422, 'validation_failed', '/bufferSize'],
    [{ source: 'file' }, 422, 'validation_failed', '/source'],
  ] as const)('%j → %i %s at %s', async (body, status, code, pointer) => {
    cp = await quickPlane();
    const error = expectError(await json(cp, 'POST', '/stream/start', body), status, code);
    expect(error.error.details?.path).toBe(pointer);
    expect(cp.manager.list()).toHaveLength(0);
  });

  test('other content types are 415; a body that is not an object is 400', async () => {
    cp = await quickPlane();
    expectError(
      await text(cp, 'POST', '/stream/start', 'x=1', 'application/x-www-form-urlencoded'),
      415,
      'unsupported_media_type',
    );
    expectError(await json(cp, 'POST', '/stream/start', [1]), 400, 'invalid_request');
  });

  test('a stream that cannot start is removed and answered 503 device_unavailable with the reason', async () => {
    const runtime = new FakeRuntime();
    runtime.failStart.set('source', 'no EEG device is attached to this service');
    cp = await quickPlane({ runtime });
    const error = expectError(await json(cp, 'POST', '/stream/start', {}), 503, 'device_unavailable');
    expect(error.error.message).toMatch(/no EEG device is attached/);
    expect(cp.manager.list()).toHaveLength(0);
  });
});

describe('GET /stream/{id}/data, /status, POST /stop', () => {
  test('data answers the latest N samples of the ring buffer, oldest first', async () => {
    cp = await quickPlane();
    const { streamId } = await start({ channels: ['Cz', 'O1'], bufferSize: 8 });
    const empty = ok<{ timestamp: null; data: unknown[]; channels: string[] }>(
      await json(cp, 'GET', `/stream/${streamId}/data`),
    );
    expect(empty).toEqual({ success: true, timestamp: null, channels: ['Cz', 'O1'], data: [] });
    cp.runtime.emitTap(streamId, 'tap', testFrame(0, 5, ['Cz', 'O1'], 0));
    cp.runtime.emitTap(streamId, 'tap', testFrame(1, 5, ['Cz', 'O1'], 100));
    const three = ok<{ timestamp: number; data: number[][]; channels: string[] }>(
      await json(cp, 'GET', `/stream/${streamId}/data?limit=3`),
    );
    expect(three.channels).toEqual(['Cz', 'O1']);
    expect(three.data).toEqual([
      [120, 121],
      [130, 131],
      [140, 141],
    ]);
    // Row 2 of the frame at 1_700_000_001_000 ms, 4 ms per sample at 250 Hz.
    expect(three.timestamp).toBe(1_700_000_001_008);
    // At most bufferSize (8) rows are kept, whatever the limit.
    const all = ok<{ data: number[][] }>(await json(cp, 'GET', `/stream/${streamId}/data?limit=100`));
    expect(all.data).toHaveLength(8);
    // 10 rows came: the first two (values 0 and 10) were overwritten.
    expect(all.data[0]).toEqual([20, 21]);
    expect(all.data.at(-1)).toEqual([140, 141]);
  });

  test('data limit must be a positive integer', async () => {
    cp = await quickPlane();
    const { streamId } = await start({});
    expectError(await json(cp, 'GET', `/stream/${streamId}/data?limit=abc`), 400, 'invalid_request');
    expectError(await json(cp, 'GET', `/stream/${streamId}/data?limit=0`), 422, 'validation_failed');
    expectError(await json(cp, 'GET', `/stream/${streamId}/data?other=1`), 400, 'invalid_request');
  });

  test('status counts samples and gives the reference fields; stop answers duration and samples', async () => {
    cp = await quickPlane();
    const { streamId } = await start({ channels: ['Pz'], sampleRate: 250 });
    for (let i = 0; i < 4; i++) cp.runtime.emitTap(streamId, 'tap', testFrame(i, 10, ['PZ']));
    const status = ok(await json(cp, 'GET', `/stream/${streamId}/status`));
    expect(status).toMatchObject({
      success: true,
      streamId,
      status: 'running',
      samples: 40,
      sampleRate: 250,
      channels: ['PZ'],
      clients: 0,
      recording: false,
      recordingId: null,
      bufferSize: 2500,
      buffered: 40,
      pipe: null,
      ingest: null,
    });
    expect(Number.isNaN(Date.parse(status.startTime as string))).toBe(false);
    expect(status.duration).toBeGreaterThanOrEqual(0);
    const rate = status.dataRate as { samplesPerSecond: number; bytesPerSecond: number };
    expect(rate.samplesPerSecond).toBeGreaterThan(0);
    // Bytes are counted from the unrounded rate: equal to samples/s × 1 channel × 4 bytes within the
    // rounding of samples/s (0.05) and of bytes/s (0.5).
    expect(Math.abs(rate.bytesPerSecond - rate.samplesPerSecond * 1 * 4)).toBeLessThanOrEqual(0.05 * 4 + 0.5);

    const stopped = ok(await json(cp, 'POST', `/stream/${streamId}/stop`));
    expect(stopped).toMatchObject({ success: true, streamId, status: 'stopped', samples: 40 });
    expect(typeof stopped.duration).toBe('number');
    expect(cp.runtime.ops(streamId)).toEqual(['start', 'stop']);
    // A repeated stop changes nothing; data and status stay readable.
    ok(await json(cp, 'POST', `/stream/${streamId}/stop`));
    const after = ok(await json(cp, 'GET', `/stream/${streamId}/status`));
    expect(after).toMatchObject({
      status: 'stopped',
      samples: 40,
      dataRate: { samplesPerSecond: 0, bytesPerSecond: 0 },
    });
    expect(
      ok<{ data: unknown[] }>(await json(cp, 'GET', `/stream/${streamId}/data?limit=5`)).data,
    ).toHaveLength(5);
  });

  test('recording and recordingId follow a running recorder node of the stream', async () => {
    const runtime = new FakeRuntime();
    const status = runtime.status.bind(runtime);
    runtime.status = (id) => {
      const s = status(id);
      if (s?.nodes.rec !== undefined) s.nodes.rec.info = { recording: 'session-1.bdf', format: 'bdf' };
      return s;
    };
    cp = await quickPlane({ runtime });
    const { streamId } = await start({ channels: ['Cz'] });
    ok(
      await json(cp, 'POST', `/stream/streams/${streamId}/nodes`, [
        { id: 'rec', executable: 'recorder', config: { filename: 'session-1.bdf', format: 'bdf' } },
      ]),
    );
    ok(
      await json(cp, 'POST', `/stream/streams/${streamId}/pipes`, [
        { id: 'p-rec', source: 'source', destination: 'rec' },
      ]),
    );
    const body = ok(await json(cp, 'GET', `/stream/${streamId}/status`));
    expect(body).toMatchObject({ recording: true, recordingId: 'session-1.bdf' });
  });

  test('unknown ids are 404 stream_not_found; streams that are not quick streams are 404 not_found', async () => {
    cp = await quickPlane();
    const unknown = '0d9a7c1e-2b3f-4a5b-8c6d-7e8f9a0b1c2d';
    for (const [method, url] of [
      ['GET', `/stream/${unknown}/data`],
      ['GET', `/stream/${unknown}/status`],
      ['POST', `/stream/${unknown}/stop`],
      ['GET', `/stream/${unknown}`],
    ] as const) {
      expectError(await json(cp, method, url), 404, 'stream_not_found');
    }
    const other = '6f1c2f0e-8a4b-4c1d-9e2f-3a4b5c6d7e8f';
    ok(
      await json(cp, 'POST', '/stream/streams', {
        id: other,
        nodes: [{ id: 'log', executable: 'logger', config: {} }],
        pipes: [],
      }),
    );
    for (const [method, url] of [
      ['GET', `/stream/${other}/data`],
      ['GET', `/stream/${other}/status`],
      ['POST', `/stream/${other}/stop`],
      ['GET', `/stream/${other}`],
    ] as const) {
      const error = expectError(await json(cp, method, url), 404, 'not_found');
      expect(error.error.message).toMatch(/not a quick EEG stream/);
    }
  });

  test('stop of a quick stream that failed is accepted (it was 409); a plain GET of the socket path is 400', async () => {
    cp = await quickPlane();
    const { streamId } = await start({});
    expectError(await json(cp, 'GET', `/stream/${streamId}`), 400, 'invalid_request');
    expectError(await json(cp, 'GET', `/stream/${streamId}/ingest`), 404, 'node_not_found');
    cp.runtime.failStart.set('source', 'device gone');
    ok(await json(cp, 'POST', `/stream/${streamId}/stop`));
    await json(cp, 'POST', `/stream/streams/${streamId}/signal`, { signal: 'start' });
    await cp.manager.settle();
    expect(cp.manager.get(streamId).state).toBe('error');
    // From error, stop is accepted: the failed stream is then wanted stopped.
    expect(ok(await json(cp, 'POST', `/stream/${streamId}/stop`))).toMatchObject({ status: 'stopped' });
  });
});

/**
 * The maker's SDK (instinct-py 1.5.1) stream calls against the real service, each made as the SDK
 * makes it (test/support/instinct-client.ts) and each answer checked against the SDK's model
 * (test/support/instinct-models.ts). Before, every one of them was a 404 or 405, the bodies the
 * SDK sends (meta: null, a text meta.version, single node and pipe objects, nested signals) were
 * refused, and no answer carried the `message` its models require. A stream made through the SDK
 * is the stream of /stream/streams: listed, run and read there, and the other way round.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SDK_TIMEOUT, sdkCall } from '../support/instinct-client.js';
import {
  listProblems,
  modelProblems,
  NodeResponse,
  PipeResponse,
  Stream,
  StreamResponse,
} from '../support/instinct-models.js';
import { json, type Service, startService } from '../support/service.js';
import { eventually } from '../support/wait.js';

let service: Service;
beforeAll(async () => {
  service = await startService();
});
afterAll(async () => {
  await service.stop();
});

const T = SDK_TIMEOUT.default;

/** A stream as the SDK's StreamConfig.model_dump() sends it: ids filled, meta null where absent. */
function sdkStream() {
  const source = randomUUID();
  const log = randomUUID();
  return {
    source,
    log,
    body: {
      id: randomUUID(),
      nodes: [
        {
          executable: 'signal-generator',
          config: { sampleRate: 250, amplitudes: [1], frequencies: [10], channels: 2 },
          id: source,
          meta: null,
        },
        { executable: 'logger', config: {}, id: log, meta: { author: 'lab', version: '1.1.0' } },
      ],
      pipes: [{ source, destination: log, id: randomUUID() }],
      meta: { name: 'Alpha Rhythm Analysis', description: 'from the SDK', version: '1.0.0' },
    },
  };
}

/** Until the reference paths read the stream in `state`. */
function reaches(id: string, state: string): Promise<true> {
  return eventually(async () => ((await referenceState(id)) === state ? true : undefined), 10_000, state);
}

async function referenceState(id: string): Promise<string> {
  const { body } = await json(`${service.url}/stream/streams/${id}/status`);
  return String(body.status.state).toLowerCase();
}

describe("the SDK's stream calls", () => {
  test('create (meta.version text, node meta null), then list and get answer its models, and /stream/streams lists it', async () => {
    const { body } = sdkStream();
    const created = await sdkCall(service.url, 'POST', '/streams/stream', {
      json: body,
      timeoutMs: SDK_TIMEOUT.createStream,
    });
    expect(modelProblems(StreamResponse, created.body)).toEqual([]);
    const list = await sdkCall(service.url, 'GET', '/streams/stream', { timeoutMs: T });
    expect(listProblems(Stream, list.body)).toEqual([]);
    const read = await sdkCall(service.url, 'GET', `/streams/stream/${body.id}`, { timeoutMs: T });
    expect(modelProblems(Stream, read.body)).toEqual([]);
    expect((read.body as { meta: { version: string } }).meta.version).toBe('1.0.0');
    expect((read.body as { nodes: { meta: unknown }[] }).nodes[0]?.meta).toBeNull();

    const reference = await json(`${service.url}/stream/streams`);
    expect(reference.body.streams.map((s: { id: string }) => s.id)).toContain(body.id);
  });

  test('start answers within its 1 s timeout and the stream runs as /stream/streams shows it; stop, signal and reconcile too', async () => {
    const { body } = sdkStream();
    await sdkCall(service.url, 'POST', '/streams/stream', {
      json: body,
      timeoutMs: SDK_TIMEOUT.createStream,
    });
    const started = await sdkCall(service.url, 'POST', '/streams/stream/start', {
      json: { streamId: body.id },
      timeoutMs: T,
    });
    expect(modelProblems(StreamResponse, started.body)).toEqual([]);
    await reaches(body.id, 'running');

    const reconciled = await sdkCall(service.url, 'POST', '/streams/stream/reconcile', {
      json: { streamId: body.id },
      timeoutMs: T,
    });
    expect(modelProblems(StreamResponse, reconciled.body)).toEqual([]);

    const signalled = await sdkCall(service.url, 'POST', '/streams/stream/signal', {
      json: { streamId: body.id, signal: { signal: 'pause', parameters: {} } },
      timeoutMs: T,
    });
    expect(modelProblems(StreamResponse, signalled.body)).toEqual([]);
    await reaches(body.id, 'paused');

    const stopped = await sdkCall(service.url, 'POST', '/streams/stream/stop', {
      json: { streamId: body.id },
      timeoutMs: T,
    });
    expect(modelProblems(StreamResponse, stopped.body)).toEqual([]);
    await reaches(body.id, 'stopped');
  });

  test('a stream signal that is no lifecycle signal is refused with a 4xx naming the signals', async () => {
    const { body } = sdkStream();
    await sdkCall(service.url, 'POST', '/streams/stream', {
      json: body,
      timeoutMs: SDK_TIMEOUT.createStream,
    });
    await expect(
      sdkCall(service.url, 'POST', '/streams/stream/signal', {
        json: { streamId: body.id, signal: { signal: 'custom_command', parameters: { param1: 'value1' } } },
        timeoutMs: T,
      }),
    ).rejects.toThrow(/400 .*start, stop, pause, resume, reconcile/);
  });

  test('nodes: add one, signal it with parameters, remove it; pipes: add one, remove it; all live on the running stream', async () => {
    const { body, source } = sdkStream();
    await sdkCall(service.url, 'POST', '/streams/stream', {
      json: body,
      timeoutMs: SDK_TIMEOUT.createStream,
    });
    await sdkCall(service.url, 'POST', '/streams/stream/start', {
      json: { streamId: body.id },
      timeoutMs: T,
    });
    await reaches(body.id, 'running');

    const extra = {
      executable: 'recorder',
      config: { filename: `sdk-${body.id}` },
      id: randomUUID(),
      meta: null,
    };
    const added = await sdkCall(service.url, 'POST', '/streams/node', {
      json: { streamId: body.id, node: extra },
      timeoutMs: T,
    });
    expect(modelProblems(NodeResponse, added.body)).toEqual([]);

    const pipe = { source, destination: extra.id, id: randomUUID() };
    const piped = await sdkCall(service.url, 'POST', '/streams/pipe', {
      json: { streamId: body.id, pipe },
      timeoutMs: T,
    });
    expect(modelProblems(PipeResponse, piped.body)).toEqual([]);

    const reference = await json(`${service.url}/stream/streams/${body.id}`);
    expect(reference.body.stream.nodes.map((n: { id: string }) => n.id)).toContain(extra.id);
    expect(reference.body.stream.pipes.map((p: { id: string }) => p.id)).toContain(pipe.id);

    const signalled = await sdkCall(service.url, 'POST', '/streams/node/signal', {
      json: {
        streamId: body.id,
        nodeId: extra.id,
        signal: { signal: 'marker', parameters: { text: 'eyes closed' } },
      },
      timeoutMs: T,
    });
    expect(modelProblems(NodeResponse, signalled.body)).toEqual([]);

    const unpiped = await sdkCall(service.url, 'DELETE', `/streams/pipe/${body.id}/${pipe.id}`, {
      timeoutMs: T,
    });
    expect(modelProblems(PipeResponse, unpiped.body)).toEqual([]);
    const removed = await sdkCall(service.url, 'DELETE', `/streams/node/${body.id}/${extra.id}`, {
      timeoutMs: T,
    });
    expect(modelProblems(NodeResponse, removed.body)).toEqual([]);
    const after = await json(`${service.url}/stream/streams/${body.id}`);
    expect(after.body.stream.nodes.map((n: { id: string }) => n.id)).not.toContain(extra.id);
    expect(await referenceState(body.id)).toBe('running');
  });

  test('delete (the manager’s and the stream’s, one request) answers its model and the stream is gone from /stream/streams', async () => {
    const { body } = sdkStream();
    await sdkCall(service.url, 'POST', '/streams/stream', {
      json: body,
      timeoutMs: SDK_TIMEOUT.createStream,
    });
    await sdkCall(service.url, 'POST', '/streams/stream/start', {
      json: { streamId: body.id },
      timeoutMs: T,
    });
    const deleted = await sdkCall(service.url, 'DELETE', `/streams/stream/${body.id}`, { timeoutMs: T });
    expect(modelProblems(StreamResponse, deleted.body)).toEqual([]);
    const reference = await json(`${service.url}/stream/streams/${body.id}`);
    expect(reference.status).toBe(404);
    await expect(sdkCall(service.url, 'GET', `/streams/stream/${body.id}`, { timeoutMs: T })).rejects.toThrow(
      /^404/,
    );
  });

  test('a stream created on the reference path is listed and read through the SDK, its model accepting it', async () => {
    const id = randomUUID();
    const created = await json(`${service.url}/stream/streams`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id,
        meta: { name: 'reference', version: 2 },
        nodes: [
          {
            id: 'gen',
            executable: 'signal-generator',
            config: { sampleRate: 250, amplitudes: [1], frequencies: [5], channels: 1 },
          },
          { id: 'log', executable: 'logger' },
        ],
        pipes: [{ id: 'p', source: 'gen', destination: 'log' }],
      }),
    });
    expect(created.status).toBe(200);
    const read = await sdkCall(service.url, 'GET', `/streams/stream/${id}`, { timeoutMs: T });
    expect(modelProblems(Stream, read.body)).toEqual([]);
    const list = await sdkCall(service.url, 'GET', '/streams/stream', { timeoutMs: T });
    expect((list.body as { id: string }[]).map((s) => s.id)).toContain(id);
  });
});

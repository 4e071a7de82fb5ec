/**
 * The maker's SDK README (instinct-py 1.5.1) stream examples against the real service, made by
 * Python `requests` as the SDK makes them (test/fixtures/instinct/readme_streams.py), each answer
 * checked against the SDK's models (test/support/instinct-models.ts). Before, "Working with
 * Streams" was refused with 422 unknown_executable (eeg_source, ssvep_algo) and the README's
 * eeg_source and bandpass_filter did not exist.

 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { randomUUID } from 'node:crypto';
import { SDK_TIMEOUT, sdkCall } from '../support/instinct-client.js';
import { modelProblems, StreamResponse } from '../support/instinct-models.js';
import { json, type Service, startService } from '../support/service.js';
import { eventually } from '../support/wait.js';

const hasRequests =
  spawnSync('/usr/bin/python3', ['-c', 'import requests'], { timeout: 10_000 }).status === 0;
const SCRIPT = path.join(import.meta.dirname, '..', 'fixtures', 'instinct', 'readme_streams.py');

interface SdkNode {
  executable: string;
  config: Record<string, unknown>;
  id: string;
}
interface Run {
  stream: {
    id: string;
    nodes: SdkNode[];
    pipes: { source: string; destination: string; id: string }[];
  } | null;
  results: { call: string; status?: number; body?: unknown; error?: string }[];
}
interface FrameMessage {
  sampleRate: number;
  channels: string[];
  data: number[][];
}
interface NodeStatus {
  id: string;
  state: string;
  port?: number;
  metrics: Record<string, number>;
}

let service: Service | undefined;
const sockets: WebSocket[] = [];
beforeAll(async () => {
  if (hasRequests) service = await startService();
});
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.terminate();
});
afterAll(async () => {
  await service?.stop();
});

function readme(example: string, streamId?: string): Run {
  const args = [SCRIPT, service?.url ?? '', example, ...(streamId === undefined ? [] : [streamId])];
  const run = spawnSync('/usr/bin/python3', args, { encoding: 'utf8', timeout: 60_000 });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout.trim()) as Run;
}

/** Each call succeeded and its answer is what the SDK's model takes. */
function expectAnswered(run: Run, calls: string[]): void {
  expect(run.results.map((r) => r.call)).toEqual(calls);
  for (const result of run.results) {
    expect(result.error, result.call).toBeUndefined();
    expect(modelProblems(StreamResponse, result.body), result.call).toEqual([]);
  }
}

async function nodes(streamId: string): Promise<NodeStatus[]> {
  const { body } = await json(`${service?.url}/stream/streams/${streamId}/status`);
  return body.status.nodes as NodeStatus[];
}

/** stream.stop(), then stream.delete(), as the SDK makes them. */
function stopAndDelete(streamId: string): void {
  expectAnswered(readme('stop', streamId), ['stream.stop', 'stream.delete']);
}

describe.skipIf(!hasRequests)("the SDK README's stream examples", () => {
  test('"Working with Streams" as written: created, started, its eeg_source feeding ssvep_algo, stopped', async () => {
    const run = readme('working-with-streams');
    expectAnswered(run, ['stream.create', 'stream.start']);
    const stream = run.stream as NonNullable<Run['stream']>;
    const [source, ssvep] = stream.nodes as [SdkNode, SdkNode];
    // Both nodes run, and the algorithm takes in the source's frames.
    await eventually(
      async () => {
        const now = await nodes(stream.id);
        const fed = now.find((n) => n.id === ssvep.id);
        return now.every((n) => n.state === 'running') && (fed?.metrics.itemsProcessed ?? 0) > 0;
      },
      20_000,
      'both nodes running and ssvep_algo fed',
    );
    expect((await nodes(stream.id)).map((n) => n.id).sort()).toEqual([source.id, ssvep.id].sort());
    stopAndDelete(stream.id);
  });

  test('the example with bandpass_filter and a websocket in place of ssvep_algo runs: its frames at 1000 Hz, acquisition at gain 1', async () => {
    const run = readme('filter-variant');
    expectAnswered(run, ['stream.create', 'stream.start']);
    const stream = run.stream as NonNullable<Run['stream']>;
    const socketNode = stream.nodes[2] as SdkNode;
    const port = await eventually(
      async () => (await nodes(stream.id)).find((n) => n.id === socketNode.id)?.port,
      10_000,
      "the websocket node's port",
    );
    const frames: FrameMessage[] = [];
    const socket = new WebSocket(`ws://127.0.0.1:${port}/`);
    sockets.push(socket);
    socket.on('message', (data: Buffer) => frames.push(JSON.parse(data.toString('utf8')) as FrameMessage));
    await eventually(() => frames.length >= 20, 20_000, '20 filtered frames');
    // eeg_source's sampleRate and gain: acquisition (idle until then) started at both.
    // The SDK's own reads of them: get_sensor("eeg") and get_electrode("O1").
    expect((await json(`${service?.url}/system/sensors/eeg`)).body.sample_rate).toBe(1000);
    expect((await json(`${service?.url}/system/electrodes/O1`)).body.gain).toBe(1);
    for (const frame of frames) {
      expect(frame.sampleRate).toBe(1000);
      expect(frame.channels).toHaveLength(19);
    }
    expect((await nodes(stream.id)).every((n) => n.state === 'running')).toBe(true);
    stopAndDelete(stream.id);
  });

  test('"Stream Management" as written: 422 naming the pipe\'s unknown nodes source_id and destination_id', () => {
    const run = readme('stream-management');
    expect(run.results.map((r) => [r.call, r.status])).toEqual([['stream.create', 422]]);
    const error = JSON.parse(run.results[0]?.error ?? '{}') as {
      error: { code: string; message: string; details?: unknown };
    };
    expect(error.error.code).toBe('validation_failed');
    // Both ends named in the one message, with the ids the SDK generated for the nodes.
    const ids = (run.stream?.nodes ?? []).map((n) => `'${n.id}'`).join(', ');
    expect(error.error.message).toBe(
      `The stream at /pipes/0: source 'source_id' and destination 'destination_id' name no node of this stream (its nodes are ${ids}).`,
    );
    // Its nodes themselves are the device's: nothing is said against them.
    expect(error.error.message).not.toMatch(/eeg_source|bandpass_filter|\/nodes\//);
    expect(run.stream?.nodes).toHaveLength(2);
  });

  /** A stream of the README's "Stream Management" nodes, ids given, as the SDK sends it. */
  function managementStream(source: Record<string, unknown>, filter: Record<string, unknown>) {
    const ids = { stream: randomUUID(), source: randomUUID(), filter: randomUUID(), socket: randomUUID() };
    return {
      ids,
      body: {
        id: ids.stream,
        nodes: [
          { executable: 'eeg_source', config: source, id: ids.source, meta: null },
          { executable: 'bandpass_filter', config: filter, id: ids.filter, meta: null },
          { executable: 'websocket', config: { port: 0 }, id: ids.socket, meta: null },
        ],
        pipes: [
          { source: ids.source, destination: ids.filter, id: randomUUID() },
          { source: ids.filter, destination: ids.socket, id: randomUUID() },
        ],
        meta: null,
      },
    };
  }

  test('"Stream Management"\'s nodes with pipes that name them run: channels O1, O2, PZ (any case) at 250 Hz', async () => {
    const { ids, body } = managementStream(
      { sampleRate: 250, channels: ['O1', 'O2', 'PZ'] },
      { cutoff: 10, bandwidth: 4, order: 4 },
    );
    const base = service?.url ?? '';
    await sdkCall(base, 'POST', '/streams/stream', { json: body, timeoutMs: SDK_TIMEOUT.createStream });
    await sdkCall(base, 'POST', '/streams/stream/start', { json: { streamId: ids.stream }, timeoutMs: 1000 });
    const port = await eventually(
      async () => (await nodes(ids.stream)).find((n) => n.id === ids.socket)?.port,
      10_000,
      "the websocket node's port",
    );
    const frames: FrameMessage[] = [];
    const socket = new WebSocket(`ws://127.0.0.1:${port}/`);
    sockets.push(socket);
    socket.on('message', (data: Buffer) => frames.push(JSON.parse(data.toString('utf8')) as FrameMessage));
    await eventually(() => frames.length >= 10, 20_000, '10 filtered frames');
    // Frames name the electrodes as the device does.
    for (const frame of frames) {
      expect(frame.channels).toEqual(['O1', 'O2', 'Pz']);
      expect(frame.sampleRate).toBe(250);
    }
    stopAndDelete(ids.stream);
  });

  test.each([
    [{ sampleRate: 300 }, {}, '/nodes/0/config/sampleRate', /250, 500, 1000/],
    [{ gain: 3 }, {}, '/nodes/0/config/gain', /1, 2, 4, 6, 8, 12, 24/],
    [{ channels: ['O1', 'XX'] }, {}, '/nodes/0/config/channels/1', /'XX' is not a channel of the device/],
    [{ channels: ['O1', 'o1'] }, {}, '/nodes/0/config/channels/1', /'o1' is listed twice/],
    [{ sampleRate: 250 }, { cutoff: 123 }, '/nodes/1/config/cutoff', /upper edge at 125 Hz.*Nyquist/],
    [{}, { cutoff: 2 }, '/nodes/1/config/bandwidth', /lower edge at 0 Hz/],
  ])(
    'a config the device cannot honour is refused at create time: eeg_source %o, bandpass_filter %o → 422 at %s',
    async (source, filter, pointer, message) => {
      const { body } = managementStream(source, { cutoff: 10, bandwidth: 4, ...filter });
      const error = await sdkCall(service?.url ?? '', 'POST', '/streams/stream', {
        json: body,
        timeoutMs: SDK_TIMEOUT.createStream,
      }).then(
        () => undefined,
        (e: unknown) => (e instanceof Error ? e.message : String(e)),
      );
      expect(error).toMatch(/^422 /);
      const envelope = JSON.parse((error ?? '').replace(/^[^{]*/, '')) as {
        error: { message: string; details: { path: string } };
      };
      expect(envelope.error.details.path).toBe(pointer);
      expect(envelope.error.message).toMatch(message);
    },
  );
});

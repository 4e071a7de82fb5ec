/**
 * The reference examples as written: SignalGenerator → WebSocket with the reference's command
 * lines, created once from JSON and once from YAML on the real service. Clients receive two
 * seconds of frames at the configured rate without seq gaps, paced by their sample count (every
 * frame's timestamp follows from the samples before it): a `ws` client for one stream and an
 * independent client (Debian's python3-websockets) for the other. Only the frames' own times are
 * read, never a clock of the test: that no frame leaves before its last sample is due is the
 * generator's property, shown on a faked clock in src/streams/executables/signal-generator.test.ts. How
 * close to real time the rate holds on a busy machine is measured by the benchmarks, not asserted
 * here.
 */
import { spawn } from 'node:child_process';
import { afterEach, expect, test } from 'vitest';
import WebSocket from 'ws';
import { json, type Service, startService } from '../support/service.js';
import { eventually } from '../support/wait.js';

const SECONDS = 2;
let service: Service | undefined;
afterEach(async () => {
  await service?.stop('SIGKILL');
  service = undefined;
});

const JSON_ID = '5d3f1a20-7c4b-4e8d-9a1b-2c3d4e5f6a01';
const YAML_ID = '5d3f1a20-7c4b-4e8d-9a1b-2c3d4e5f6a02';

const jsonStream = {
  id: JSON_ID,
  meta: {
    name: 'Signal to WebSocket',
    description: 'reference example (JSON)',
    tags: ['example'],
    version: 1,
  },
  nodes: [
    {
      id: 'f47ac10b-58cc-4372-a567-0e02b2c3d479',
      type: 'EXECUTABLE_PRODUCER',
      meta: { type: 'SOURCE' },
      executable: 'node /usr/share/engines/worker-scripts/SignalGenerator.js',
      config: { sampleRate: 250, amplitudes: [1, 0.5], frequencies: [10, 20], channels: 4 },
    },
    {
      id: '9b2e1d7c-3f4a-4b8e-8c1d-2a3b4c5d6e7f',
      type: 'EXECUTABLE_CONSUMER',
      meta: { type: 'OUTPUT' },
      executable: 'node /usr/share/engines/worker-scripts/WebSocket.js',
      config: { port: 0 },
    },
  ],
  pipes: [
    {
      id: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
      source: 'f47ac10b-58cc-4372-a567-0e02b2c3d479',
      destination: '9b2e1d7c-3f4a-4b8e-8c1d-2a3b4c5d6e7f',
    },
  ],
};

const yamlStream = `
id: ${YAML_ID}
meta:
  name: Signal to WebSocket
  description: reference example (YAML)
  tags: [example]
  version: 1
nodes:
  - id: 6c1d2e3f-4a5b-4c6d-8e7f-8a9b0c1d2e3f
    type: EXECUTABLE_PRODUCER
    meta: { type: SOURCE }
    executable: node /usr/share/engines/worker-scripts/SignalGenerator.js
    config:
      sampleRate: 500
      amplitudes: [1]
      frequencies: [10]
  - id: 7d2e3f4a-5b6c-4d7e-9f8a-9b0c1d2e3f4a
    type: EXECUTABLE_CONSUMER
    meta: { type: OUTPUT }
    executable: node /usr/share/engines/worker-scripts/WebSocket.js
    config:
      port: 0
pipes:
  - id: 8e3f4a5b-6c7d-4e8f-a09b-0c1d2e3f4a5b
    source: 6c1d2e3f-4a5b-4c6d-8e7f-8a9b0c1d2e3f
    destination: 7d2e3f4a-5b6c-4d7e-9f8a-9b0c1d2e3f4a
`;

interface Measure {
  /** Frames' `sampleRate`, each distinct value once. */
  rates: number[];
  /** seq numbers that did not follow the previous one. */
  gaps: number;
  /** Frames whose timestamp is not the previous one's plus its samples' duration. */
  jumps: number;
  samples: number;
}

/** What a `ws` client sees over SECONDS × rate samples. */
function measureWithWs(port: number, rate: number): Promise<Measure> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}`);
    const m: Measure = { rates: [], gaps: 0, jumps: 0, samples: 0 };
    let last: { seq: number; end: number } | undefined;
    socket.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString()) as {
        seq: number;
        timestamp: number;
        sampleRate: number;
        data: number[][];
      };
      const period = 1000 / frame.sampleRate;
      if (!m.rates.includes(frame.sampleRate)) m.rates.push(frame.sampleRate);
      if (last !== undefined && frame.seq !== last.seq + 1) m.gaps++;
      if (last !== undefined && Math.abs(frame.timestamp - last.end) > 1e-6) m.jumps++;
      last = { seq: frame.seq, end: frame.timestamp + frame.data.length * period };
      m.samples += frame.data.length;
      if (m.samples >= SECONDS * rate) {
        socket.close();
        resolve(m);
      }
    });
    socket.once('error', reject);
  });
}

/** The same measure with python3-websockets, an independent client implementation. */
function measureWithPython(port: number, rate: number): Promise<Measure> {
  const script = `
import asyncio, json, websockets
async def main():
    async with websockets.connect("ws://127.0.0.1:${port}", max_size=None) as ws:
        m = {"rates": [], "gaps": 0, "jumps": 0, "samples": 0}
        last = None
        while m["samples"] < ${SECONDS * rate}:
            frame = json.loads(await ws.recv())
            period = 1000 / frame["sampleRate"]
            if frame["sampleRate"] not in m["rates"]: m["rates"].append(frame["sampleRate"])
            if last is not None and frame["seq"] != last[0] + 1: m["gaps"] += 1
            if last is not None and abs(frame["timestamp"] - last[1]) > 1e-6: m["jumps"] += 1
            last = (frame["seq"], frame["timestamp"] + len(frame["data"]) * period)
            m["samples"] += len(frame["data"])
        print(json.dumps(m))
asyncio.run(main())
`;
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/python3', ['-c', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('exit', (code) => {
      if (code === 0) resolve(JSON.parse(out) as Measure);
      else reject(new Error(`python client failed: ${err}`));
    });
  });
}

async function portOf(url: string, id: string): Promise<number> {
  return eventually(
    async () => {
      const { body } = await json(`${url}/stream/streams/${id}/status`);
      const ws = body.status.nodes.find((n: { port?: number }) => typeof n.port === 'number');
      return body.status.state === 'running' && ws !== undefined ? (ws.port as number) : undefined;
    },
    15_000,
    `stream ${id} running`,
  );
}

test('the reference examples run as written, from JSON and from YAML, paced at their rate with no gaps', async () => {
  service = await startService();
  const created = [
    await json(`${service.url}/stream/streams`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(jsonStream),
    }),
    await json(`${service.url}/stream/streams/yaml`, {
      method: 'POST',
      headers: { 'content-type': 'text/yaml' },
      body: yamlStream,
    }),
  ];
  expect(created.map((c) => c.body)).toEqual([
    { id: JSON_ID, success: true },
    { id: YAML_ID, success: true },
  ]);
  for (const id of [JSON_ID, YAML_ID]) {
    const started = await json(`${service.url}/stream/streams/${id}/signal`, {
      method: 'POST',
      body: new URLSearchParams({ signal: 'start' }),
    });
    expect(started.body).toEqual({ id, success: true });
  }
  // A read right after `start` shows RUNNING; on a busy machine the first start (booting a worker)
  // can outlast the signal's 0.5 s wait, and the read shows STARTING until it has (docs/api.md).
  const url = service.url;
  const seen = new Set<string>();
  await eventually(
    async () => {
      const read = await json(`${url}/stream/streams/${JSON_ID}`);
      seen.add(read.body.stream.status as string);
      return read.body.stream.status === 'RUNNING' || undefined;
    },
    15_000,
    `stream ${JSON_ID} read as RUNNING`,
  );
  expect([...seen].filter((status) => status !== 'STARTING' && status !== 'RUNNING')).toEqual([]);

  const [fromJson, fromYaml] = await Promise.all([
    measureWithWs(await portOf(service.url, JSON_ID), 250),
    measureWithPython(await portOf(service.url, YAML_ID), 500),
  ]);
  expect(fromJson).toMatchObject({ rates: [250], gaps: 0, jumps: 0 });
  expect(fromYaml).toMatchObject({ rates: [500], gaps: 0, jumps: 0 });
}, 60_000);

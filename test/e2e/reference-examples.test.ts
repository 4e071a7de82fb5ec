/**
 * The reference examples as written: SignalGenerator → WebSocket with the reference's command
 * lines, created once from JSON and once from YAML on the real service. Clients receive frames at
 * the configured rate (±2 % over 10 s) without seq gaps: a `ws` client for one stream and an
 * independent client (Debian's python3-websockets) for the other.
 */
import { spawn } from 'node:child_process';
import { afterEach, expect, test } from 'vitest';
import WebSocket from 'ws';
import { eventually, json, type Service, startService } from '../support/service.js';

const SECONDS = 10;
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

/** Samples per second and seq gaps seen by a `ws` client over SECONDS, counted from its first frame. */
function measureWithWs(port: number): Promise<{ rate: number; gaps: number }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}`);
    let first: number | undefined;
    let samples = 0;
    let gaps = 0;
    let lastSeq: number | undefined;
    socket.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString()) as { seq: number; data: number[][] };
      const now = performance.now();
      if (lastSeq !== undefined && frame.seq !== lastSeq + 1) gaps++;
      lastSeq = frame.seq;
      if (first === undefined) {
        first = now;
        return;
      }
      samples += frame.data.length;
      if (now - first >= SECONDS * 1000) {
        socket.close();
        resolve({ rate: samples / ((now - first) / 1000), gaps });
      }
    });
    socket.once('error', reject);
  });
}

/** The same measure with python3-websockets, an independent client implementation. */
function measureWithPython(port: number): Promise<{ rate: number; gaps: number }> {
  const script = `
import asyncio, json, sys, time, websockets
async def main():
    async with websockets.connect("ws://127.0.0.1:${port}", max_size=None) as ws:
        frame = json.loads(await ws.recv()); first = time.monotonic(); last = frame["seq"]
        samples = 0; gaps = 0
        while True:
            frame = json.loads(await ws.recv()); now = time.monotonic()
            gaps += frame["seq"] != last + 1; last = frame["seq"]; samples += len(frame["data"])
            if now - first >= ${SECONDS}:
                print(json.dumps({"rate": samples / (now - first), "gaps": gaps})); return
asyncio.run(main())
`;
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/python3', ['-c', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('exit', (code) => {
      if (code === 0) resolve(JSON.parse(out) as { rate: number; gaps: number });
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

test('the reference examples run as written, from JSON and from YAML, at their rate ±2 % over 10 s', async () => {
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
  const read = await json(`${service.url}/stream/streams/${JSON_ID}`);
  expect(read.body.stream.status).toBe('RUNNING');

  const [fromJson, fromYaml] = await Promise.all([
    measureWithWs(await portOf(service.url, JSON_ID)),
    measureWithPython(await portOf(service.url, YAML_ID)),
  ]);
  expect(fromJson.gaps).toBe(0);
  expect(fromJson.rate).toBeGreaterThan(250 * 0.98);
  expect(fromJson.rate).toBeLessThan(250 * 1.02);
  expect(fromYaml.gaps).toBe(0);
  expect(fromYaml.rate).toBeGreaterThan(500 * 0.98);
  expect(fromYaml.rate).toBeLessThan(500 * 1.02);
}, 60_000);

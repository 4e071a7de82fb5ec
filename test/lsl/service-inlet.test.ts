/**
 * The real service reading the lab's LSL streams as the defects were seen: a stream records a
 * liblsl 1.16 Gaze outlet (`lsl-inlet` → CSV `recorder`) while another stream of the service
 * publishes over LSL (`lsl-outlet`). A liblsl inlet still finds the Gaze outlet beside it; the
 * Gaze program stops and starts again several times; the CSV holds every sample it pushed, once,
 * and no sample it never pushed.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readCsvFile } from '../../src/formats/csv-reader.js';
import { type Liblsl, liblsl, liblslAvailable, liblslEnv, LslTool } from '../support/liblsl.js';
import { type Service, startService, tempDataDir } from '../support/service.js';
import { eventually } from '../support/wait.js';

const PORTS = { multicastPort: 33571, basePort: 33572, portRange: 32 };
const PUBLISHED = '0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const RECORDED = '1d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a';
const CHANNELS = 3;
const RATE = 500;
const COUNT = 200;
const ROUNDS = 5;

interface NodeStatus {
  id: string;
  metrics: { samplesProcessed: number };
  connected?: boolean;
  recoveries?: number;
  closeSamplesDropped?: number;
  uid?: string;
}

describe.skipIf(!liblslAvailable)('the service reading a liblsl outlet beside its own LSL outlet', () => {
  let lib: Liblsl;
  let service: Service;
  const tools: LslTool[] = [];

  beforeAll(async () => {
    lib = await liblsl();
    const dataDir = tempDataDir();
    service = await startService({ dataDir, lsl: PORTS });
  }, 240_000);

  afterAll(async () => {
    for (const tool of tools) tool.kill();
    await service.stop();
  });

  async function post(url: string, body: unknown): Promise<void> {
    const response = await fetch(`${service.url}${url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status, await response.clone().text()).toBe(200);
  }

  async function nodes(stream: string): Promise<NodeStatus[]> {
    const response = await fetch(`${service.url}/stream/streams/${stream}/status`);
    return ((await response.json()) as { status: { nodes: NodeStatus[] } }).status.nodes;
  }

  const node = async (stream: string, id: string) => (await nodes(stream)).find((n) => n.id === id);

  test('gaze.csv holds every sample the Gaze program pushed and nothing else, while an lsl-outlet runs', async () => {
    // The service publishes a stream of its own over LSL.
    await post('/stream/streams', {
      id: PUBLISHED,
      meta: { name: 'Service EEG' },
      nodes: [
        {
          id: 'gen',
          executable: 'signal-generator',
          config: {
            sampleRate: 250,
            amplitudes: [100],
            frequencies: [7],
            channels: 2,
            channelNames: ['CZ', 'PZ'],
          },
        },
        { id: 'lsl', executable: 'lsl-outlet' },
      ],
      pipes: [{ id: 'p1', source: 'gen', destination: 'lsl' }],
    });
    await post(`/stream/streams/${PUBLISHED}/signal`, { signal: 'start' });
    await eventually(async () => (await node(PUBLISHED, 'lsl'))?.uid, 10_000, 'the service outlet');

    const gaze = new LslTool(
      lib.tool,
      [
        lib.lib116,
        'rounds',
        'Lab Gaze',
        'Gaze',
        String(CHANNELS),
        String(RATE),
        String(COUNT),
        String(ROUNDS),
      ],
      liblslEnv(PORTS),
      true,
    );
    tools.push(gaze);
    await gaze.waitFor('READY 0');

    // lslcheck's question: a liblsl inlet finds the Gaze outlet, and the service's by name.
    const check = new LslTool(lib.tool, [lib.lib116, 'resolve', 'type', 'Gaze', '1', '5'], liblslEnv(PORTS));
    const checkOwn = new LslTool(
      lib.tool,
      [lib.lib116, 'resolve', 'name', 'Service EEG', '1', '5'],
      liblslEnv(PORTS),
    );
    tools.push(check, checkOwn);
    expect(await check.exited).toBe(0);
    expect(check.lines).toContain('FOUND Lab Gaze\tlsltool-rounds');
    expect(await checkOwn.exited).toBe(0);

    await post('/stream/streams', {
      id: RECORDED,
      meta: { name: 'Gaze recording' },
      nodes: [
        { id: 'eye', executable: 'lsl-inlet', config: { type: 'Gaze' } },
        { id: 'rec', executable: 'recorder', config: { filename: 'gaze.csv' } },
      ],
      pipes: [{ id: 'p1', source: 'eye', destination: 'rec', policy: 'block' }],
    });
    await post(`/stream/streams/${RECORDED}/signal`, { signal: 'start' });
    for (let round = 0; round < ROUNDS; round++) {
      await eventually(
        async () =>
          ((await node(RECORDED, 'rec'))?.metrics.samplesProcessed ?? 0) >= (round + 1) * COUNT || undefined,
        20_000,
        `round ${round}'s samples in the recorder`,
      );
      // The Gaze program stops (its outlet closes while the service reads it), then starts again.
      gaze.send('close');
      await eventually(
        async () => ((await node(RECORDED, 'eye'))?.recoveries ?? 0) > round || undefined,
        20_000,
        `the inlet to notice round ${round}'s close`,
      );
    }
    await gaze.exited;
    const eye = await node(RECORDED, 'eye');
    await post(`/stream/streams/${RECORDED}/signal`, { signal: 'stop' });
    const recordings = path.join(service.dataDir, 'recordings');
    await eventually(
      async () =>
        (JSON.parse(readFileSync(path.join(recordings, '.gaze.csv.json'), 'utf8')) as { complete?: boolean })
          .complete || undefined,
      10_000,
      'the recording to complete',
    );
    const csv = readCsvFile(path.join(recordings, 'gaze.csv'));
    expect(csv.header).toEqual(['ch1', 'ch2', 'ch3']);
    expect(csv.rows).toEqual(
      Array.from({ length: ROUNDS * COUNT }, (_, k) =>
        Array.from({ length: CHANNELS }, (_, c) => Math.fround(k * CHANNELS + c + 0.25)),
      ),
    );
    expect(eye?.recoveries).toBeGreaterThanOrEqual(ROUNDS);
  }, 180_000);
});

/**
 * The real service publishes a stream over LSL: a liblsl inlet of each version the machine has
 * (1.12 in every checkout, 1.16 where HEADSETD_ORACLES sets it up) resolves an `lsl-outlet` node
 * by the stream's name, and every sample it reads is one the stream's `websocket` node sent too,
 * with the same values, stamped with that frame's time mapped by GET /system/clock's offset.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { liblslEnv, liblslOf, liblslVersions, LslTool } from '../support/liblsl.js';
import { type Service, startService, tempDataDir } from '../support/service.js';
import { eventually } from '../support/wait.js';

const PORTS = { multicastPort: 28571, basePort: 28572, portRange: 16 };
const STREAM = '5d0c6b1e-3a2f-4e8d-9c7b-0a1b2c3d4e5f';

describe.skipIf(liblslVersions().length === 0)('the service as an LSL outlet', () => {
  let libs: { lib: string; tool: string }[];
  let service: Service;
  const tools: LslTool[] = [];

  beforeAll(async () => {
    libs = await Promise.all(liblslVersions().map(liblslOf));
    const dataDir = tempDataDir();
    service = await startService({ dataDir, lsl: PORTS });
  }, 240_000);

  afterAll(async () => {
    for (const tool of tools) tool.kill();
    await service.stop();
  });

  test('a liblsl inlet reads the frames a websocket node sends, values exact, times mapped by /system/clock', async () => {
    const definition = {
      id: STREAM,
      meta: { name: 'Service LSL' },
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
            noise: 5,
            seed: 11,
          },
        },
        { id: 'lsl', executable: 'lsl-outlet' },
        { id: 'ws', executable: 'websocket', config: { port: 0 } },
      ],
      pipes: [
        { id: 'p1', source: 'gen', destination: 'lsl' },
        { id: 'p2', source: 'gen', destination: 'ws' },
      ],
    };
    const created = await fetch(`${service.url}/stream/streams`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(definition),
    });
    expect(created.status).toBe(200);
    const started = await fetch(`${service.url}/stream/streams/${STREAM}/signal`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ signal: 'start' }),
    });
    expect(started.status).toBe(200);
    type NodeStatus = { id: string; port?: number; uid?: string; consumers?: number; sourceId?: string };
    const nodes = async () =>
      (
        (await (await fetch(`${service.url}/stream/streams/${STREAM}/status`)).json()) as {
          status: { nodes: NodeStatus[] };
        }
      ).status.nodes;
    const wsPort = await eventually(
      async () => (await nodes()).find((n) => n.id === 'ws')?.port,
      10_000,
      'ws port',
    );
    await eventually(async () => (await nodes()).find((n) => n.id === 'lsl')?.uid, 10_000, 'outlet open');

    const frames: { timestamp: number; data: number[][] }[] = [];
    const client = new WebSocket(`ws://127.0.0.1:${wsPort}/`);
    client.on('message', (message: Buffer) => {
      const frame = JSON.parse(message.toString()) as { timestamp: number; data: number[][] };
      // Read as float32, as the outlet sends them (docs/api.md §Frames).
      frames.push({ ...frame, data: frame.data.map((row) => row.map(Math.fround)) });
    });
    await new Promise((resolve) => client.once('open', resolve));

    const readers = libs.map(
      ({ lib, tool }) =>
        new LslTool(tool, [lib, 'inlet', 'name', 'Service LSL', '250', '10'], liblslEnv(PORTS)),
    );
    tools.push(...readers);
    for (const reader of readers) await reader.exited;
    client.close();
    for (const reader of readers) {
      expect(reader.lines).toContain('DONE');
      const xml = reader.lines.join('\n');
      expect(xml).toContain('<label>CZ</label>');
      expect(xml).toContain('<label>PZ</label>');
      expect(xml).toMatch(
        /<source_id>headsetd-[0-9a-f]{12}-5d0c6b1e-3a2f-4e8d-9c7b-0a1b2c3d4e5f-lsl<\/source_id>/,
      );
    }

    const clock = (await (await fetch(`${service.url}/system/clock`)).json()) as { offsetMs: number };
    const sent = new Map<string, number>();
    for (const frame of frames) {
      frame.data.forEach((row, i) =>
        sent.set(row.join(','), (frame.timestamp + i * 4 - clock.offsetMs) / 1000),
      );
    }
    for (const reader of readers) {
      const samples = reader.samples();
      expect(samples).toHaveLength(250);
      const stamps = reader.stamps();
      samples.forEach((sample, k) => {
        const expected = sent.get(sample.values.join(','));
        expect(expected, `sample ${sample.values.join(',')} was sent to the websocket`).toBeDefined();
        // The stamp as sent is the row's time; with liblsl's clock correction added, within half
        // the round trip liblsl reports for that estimate (1.16; 1.12 reports none).
        const { sent: stamp, correction, uncertainty } = stamps[k]!;
        expect(Math.abs(stamp - (expected ?? 0))).toBeLessThan(1e-6);
        if (!Number.isNaN(uncertainty))
          expect(Math.abs(stamp + correction - (expected ?? 0))).toBeLessThan(uncertainty / 2 + 1e-6);
      });
    }
  }, 60_000);
});

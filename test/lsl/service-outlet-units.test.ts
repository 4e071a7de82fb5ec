/**
 * An `lsl-outlet` fed frames of derived quantities and non-voltage channels (through an `ingest`
 * node, `units` in the frames) publishes them as what they are, not as EEG: a liblsl inlet of each
 * version the machine has reads the stream type `Mixed`, each channel's own `<unit>` and `<type>`
 * in the description, and exactly the values sent. Frames in µV only keep the type `EEG`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { liblslEnv, liblslOf, liblslVersions, LslTool } from '../support/liblsl.js';
import { type Service, startService, tempDataDir } from '../support/service.js';
import { eventually } from '../support/wait.js';

const PORTS = { multicastPort: 28671, basePort: 28672, portRange: 16 };
const STREAM = '7a1c2e3f-4b5d-4e6f-8a9b-0c1d2e3f4a5b';
const NAME = 'Service LSL Units';
const CHANNELS = ['O1', 'O1.alpha', 'O1.alphaDb', 'score.12Hz', 'AccX'];
const UNITS = ['µV', 'µV²', 'dB', '1', 'g'];
const RATE = 50;
const SAMPLES = 20;

describe.skipIf(liblslVersions().length === 0)('an LSL outlet of frames with units', () => {
  let libs: { lib: string; tool: string }[];
  let service: Service;
  const tools: LslTool[] = [];

  beforeAll(async () => {
    libs = await Promise.all(liblslVersions().map(liblslOf));
    service = await startService({ dataDir: tempDataDir(), lsl: PORTS });
  }, 240_000);

  afterAll(async () => {
    for (const tool of tools) tool.kill();
    await service.stop();
  });

  test('stream type Mixed, each channel its unit and type, values exact', async () => {
    const definition = {
      id: STREAM,
      meta: { name: NAME },
      nodes: [
        { id: 'in', executable: 'ingest', config: {} },
        { id: 'lsl', executable: 'lsl-outlet' },
      ],
      pipes: [{ id: 'p1', source: 'in', destination: 'lsl', policy: 'block' }],
    };
    const post = (path: string, body: unknown) =>
      fetch(`${service.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post('/stream/streams', definition)).status).toBe(200);
    expect((await post(`/stream/streams/${STREAM}/signal`, { signal: 'start' })).status).toBe(200);
    // The ingest socket opens once the stream runs (409 while it is still starting).
    const sender = await eventually(
      () =>
        new Promise<WebSocket | undefined>((resolve) => {
          const socket = new WebSocket(`${service.url.replace('http', 'ws')}/stream/${STREAM}/ingest`);
          socket.once('open', () => {
            resolve(socket);
          });
          socket.once('error', () => {
            resolve(undefined);
          });
        }),
      10_000,
      'the ingest socket',
    );
    // Row k, channel c: a distinct value, so each sample the inlet reads names the row sent.
    const row = (k: number): number[] => CHANNELS.map((_, c) => Math.fround(k * 10 + c + 0.5));
    let next = 0;
    const send = (): void => {
      const rows = Array.from({ length: 5 }, (_, i) => row(next + i));
      sender.send(
        JSON.stringify({
          timestamp: Date.now(),
          sampleRate: RATE,
          channels: CHANNELS,
          units: UNITS,
          data: rows,
        }),
      );
      next += rows.length;
    };
    send(); // opens the outlet
    const nodes = async () =>
      (
        (await (await fetch(`${service.url}/stream/streams/${STREAM}/status`)).json()) as {
          status: { nodes: { id: string; uid?: string }[] };
        }
      ).status.nodes;
    await eventually(async () => (await nodes()).find((n) => n.id === 'lsl')?.uid, 10_000, 'outlet open');

    const readers = libs.map(
      ({ lib, tool }) =>
        new LslTool(tool, [lib, 'inlet', 'name', NAME, String(SAMPLES), '10'], liblslEnv(PORTS)),
    );
    tools.push(...readers);
    // Frames keep coming until every inlet has read its samples (an inlet reads from its connection on).
    const feeding = setInterval(send, 50);
    try {
      for (const reader of readers) await reader.exited;
    } finally {
      clearInterval(feeding);
      sender.close();
    }
    for (const reader of readers) {
      expect(reader.lines).toContain('DONE');
      const xml = reader.lines.join('\n');
      expect(xml).toContain('<type>Mixed</type>');
      const channels = [
        ...xml.matchAll(/<channel>\s*<label>(.*?)<\/label>\s*<unit>(.*?)<\/unit>\s*<type>(.*?)<\/type>/g),
      ].map((m) => [m[1], m[2], m[3]]);
      expect(channels).toEqual([
        ['O1', 'microvolts', 'EEG'],
        ['O1.alpha', 'µV²', 'BandPower'],
        ['O1.alphaDb', 'dB', 'BandPower'],
        ['score.12Hz', '1', 'Score'],
        ['AccX', 'g', 'ACC'],
      ]);
      const samples = reader.samples();
      expect(samples).toHaveLength(SAMPLES);
      for (const sample of samples) {
        const k = Math.round((sample.values[0] as number) / 10);
        expect(sample.values).toEqual(row(k));
      }
    }
  }, 90_000);
});

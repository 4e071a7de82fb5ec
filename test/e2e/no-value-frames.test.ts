/**
 * Samples of no value through the running service, as a user meets them: an external node (a
 * TypeScript node speaking the NDJSON node protocol) puts NaN, +Infinity and −Infinity into a
 * generator's frames; a JSON `websocket` node sends them as the strings "NaN", "Infinity",
 * "-Infinity" (read with Python's json module), a binary one as the float32 values, and a BDF
 * recorder writes them as the digital minimum with annotations naming the channels, read by MNE.
 */
import { eventually } from '../support/wait.js';
import { runPythonScript } from '../support/python.js';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { decodeFrameBinary } from '../../src/core/frame-binary.js';
import { EdfReader } from '../../src/formats/edf-reader.js';
import { mneRead } from '../support/mne-check.js';
import { json, type Service, startService } from '../support/service.js';
import { scratchDir } from '../support/scratch.js';

/** Row r (counted from the node's first) of channel 0 is NaN when r % 50 == 10, −Infinity at 30; channel 1 +Infinity at 20. */
const HOLES_TS = `import { frameLike, type NodeFrame, run, type Send } from 'headsetd/sdk';
let row = 0;
run({
  inputs: ['in'],
  outputs: ['out'],
  onData(_port: string, frame: NodeFrame, send: Send) {
    const width = frame.channels.length;
    const data = Float32Array.from(frame.data);
    for (let i = 0; i < data.length / width; i++, row++) {
      if (row % 50 === 10) data[i * width] = Number.NaN;
      if (row % 50 === 20) data[i * width + 1] = Number.POSITIVE_INFINITY;
      if (row % 50 === 30) data[i * width] = Number.NEGATIVE_INFINITY;
    }
    send('out', frameLike(frame, data));
  },
});
`;

const ID = '5e0c2d1a-7b3f-4c9e-8d2a-1f6b9e3c4a70';
const STREAM = `id: ${ID}
meta: {name: samples of no value}
nodes:
  - {id: gen, executable: signal-generator, config: {sampleRate: 250, amplitudes: [100], frequencies: [10], channels: 3, channelNames: [Fp1, Cz, O2]}}
  - {id: holes, executable: node holes.ts}
  - {id: text, executable: websocket, config: {port: 0}}
  - {id: bin, executable: websocket, config: {port: 0, format: binary}}
  - {id: rec, executable: recorder, config: {filename: holes.bdf}}
pipes:
  - {id: p1, source: gen, target: holes}
  - {id: p2, source: holes, target: text}
  - {id: p3, source: holes, target: bin}
  - {id: p4, source: holes, target: rec}
`;

let service: Service;

beforeAll(async () => {
  const executables = scratchDir('headsetd-no-value');
  writeFileSync(path.join(executables, 'holes.ts'), HOLES_TS);
  service = await startService({ args: ['--executables-dir', executables] });
});

afterAll(async () => {
  await service.stop('SIGKILL');
});

async function signal(name: string): Promise<void> {
  const answer = await json(`${service.url}/stream/streams/${ID}/signal`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ signal: name }),
  });
  expect(answer.body, JSON.stringify(answer.body)).toMatchObject({ success: true });
}

async function nodeOf(nodeId: string): Promise<any> {
  const { body } = await json(`${service.url}/stream/streams/${ID}/status`);
  return (body.status.nodes as any[]).find((n) => n.id === nodeId);
}

/** A websocket node's port, once it has one (the stream's start may answer before its nodes run). */
function portOf(nodeId: string): Promise<number> {
  return eventually(
    async () => (await nodeOf(nodeId))?.port as number | undefined,
    30_000,
    `${nodeId}'s port`,
  );
}

/** Messages from a websocket node's port until `enough` says so. */
async function messages(port: number, enough: (all: Buffer[]) => boolean): Promise<Buffer[]> {
  const socket = new WebSocket(`ws://127.0.0.1:${port}`);
  const received: Buffer[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      socket.on('message', (data: Buffer) => {
        received.push(data);
        if (enough(received)) resolve();
      });
      socket.once('error', reject);
    });
  } finally {
    socket.close();
  }
  return received;
}

test('NaN, +Infinity and -Infinity: JSON strings, binary floats, the BDF digital minimum with annotations', async () => {
  const created = await json(`${service.url}/stream/streams/yaml`, {
    method: 'POST',
    headers: { 'content-type': 'text/yaml' },
    body: STREAM,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  await signal('start');

  // JSON: frames until each of the three has come (every 50 rows).
  const seen = (all: Buffer[], kind: string): boolean => all.some((t) => t.includes(`"${kind}"`));
  const texts = await messages(await portOf('text'), (all) =>
    ['NaN', 'Infinity', '-Infinity'].every((kind) => seen(all, kind)),
  );
  const python = await runPythonScript(
    [
      'import json, sys',
      'kinds = set()',
      'for line in sys.stdin:',
      '    for row in json.loads(line)["data"]:',
      '        for v in row:',
      '            kinds.add(v if isinstance(v, str) else ("null" if v is None else "number"))',
      'print(json.dumps(sorted(kinds)))',
    ].join('\n'),
    [],
    texts.map((t) => t.toString('utf8').replace(/\n/g, ' ')).join('\n'),
  );
  expect(python.stderr).toBe('');
  expect(JSON.parse(python.stdout)).toEqual(['-Infinity', 'Infinity', 'NaN', 'number']);

  // Binary: the float32 values as they are.
  const floats = (all: Buffer[]): number[] =>
    all.flatMap((b) => Array.from(decodeFrameBinary(new Uint8Array(b)).data));
  const binaries = await messages(await portOf('bin'), (all) => {
    const got = floats(all);
    return got.some(Number.isNaN) && got.includes(Infinity) && got.includes(-Infinity);
  });
  const values = floats(binaries);
  expect(values.some(Number.isNaN)).toBe(true);
  expect(values).toContain(Number.POSITIVE_INFINITY);
  expect(values).toContain(Number.NEGATIVE_INFINITY);

  await signal('stop');
  // The stop may answer before it has ended (1 s); the recorder's counts are final once it has.
  await eventually(
    async () => (await json(`${service.url}/stream/streams/${ID}/status`)).body.status.state === 'stopped',
    30_000,
    'the stream stopped',
  );
  const rec = await nodeOf('rec');
  expect(rec.clippedSamples).toBe(0);
  expect(rec.noValueSamples).toBeGreaterThan(0);

  const file = path.join(service.dataDir, 'recordings', 'holes.bdf');
  const reader = EdfReader.open(file);
  const header = reader.signals.slice(0, 3);
  reader.close();
  const [mne] = await mneRead([file]);
  expect(mne?.ok, mne?.error).toBe(true);
  // The samples recorded: up to `Recording ends` when the last record was padded.
  const end = mne?.annotations.find((a) => a.description === 'Recording ends');
  const samples = end === undefined ? (mne?.nTimes ?? 0) : Math.round(end.onset * 250);
  const recorded = (c: number): number[] => (mne?.data[c] ?? []).slice(0, samples);
  const step =
    (header[0]!.physicalMax - header[0]!.physicalMin) / (header[0]!.digitalMax - header[0]!.digitalMin);
  const atMinimum = (c: number): number =>
    recorded(c).filter((v) => Math.abs(v - header[c]!.physicalMin) < step / 2).length;
  // Channel 0 had NaN and -Infinity, channel 1 +Infinity, O2 nothing: no value only where there was none.
  expect(atMinimum(0)).toBeGreaterThan(0);
  expect(atMinimum(1)).toBeGreaterThan(0);
  expect(atMinimum(2)).toBe(0);
  expect(atMinimum(0) + atMinimum(1)).toBe(rec.noValueSamples);
  // Everything else is the generator's ±100 µV sine.
  for (let c = 0; c < 3; c++) {
    const others = recorded(c).filter((v) => Math.abs(v - header[c]!.physicalMin) >= step / 2);
    expect(Math.max(...others.map(Math.abs))).toBeLessThanOrEqual(100 + step);
  }
  const notes = (mne?.annotations ?? []).map((a) => a.description).filter((d) => d.startsWith('No value'));
  expect(notes.length).toBeGreaterThan(0);
  expect(
    notes.every((d) => /^No value \(NaN or infinite\): \d+ value\(s\) on (Fp1 Cz|Fp1|Cz)$/.test(d)),
  ).toBe(true);
}, 60_000);

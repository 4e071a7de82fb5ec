/**
 * The data guarantee (docs/data-guarantees.md) end to end on one device: the real service runs a
 * stream eeg-source → BDF+, EDF+ and CSV recorders, a websocket node and an LSL outlet (every pipe
 * `block`, so nothing is dropped on the way), and every output is read back by a tool no one here
 * wrote where one exists (MNE for the EDF/BDF values, EDFlib for their start time, liblsl's inlet
 * for the outlet, a plain WebSocket client) and compared sample by sample and stamp by stamp:
 *
 * - the CSV recording (float32 text, each row's time) is the reference of what eeg-source
 *   delivered: the device's checker compares it with what the source sent;
 * - BDF+ and EDF+ hold the same rows, each within half a step of the file's resolution, and no
 *   clip annotation (no sample of the source can clip); their start time is the first row's;
 * - the websocket's rows are a run of the CSV's, values and times equal;
 * - liblsl reads a run of the same rows from the outlet, values equal, stamps the rows' times on
 *   the service's LSL clock (GET /system/clock): one offset for all, within 0.1 ms, which is the
 *   inlet's time correction (within 5 ms).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import WebSocket from 'ws';
import { edflibCheck } from './edf-check.js';
import { liblslEnv, type LslPorts, LslTool } from './liblsl.js';
import { type MneResult, mneRead } from './mne-check.js';
import { json, type Service, sendJson } from './service.js';
import { eventually } from './wait.js';

export interface GuaranteeOptions {
  readonly service: Service;
  /** The stream's id (a UUID) and the LSL outlet's name. */
  readonly streamId: string;
  readonly name: string;
  /** Rows the websocket client must receive before the stream stops. */
  readonly rows: number;
  /** liblsl to read the outlet with, on the service's LSL ports; absent: the outlet is not read. */
  readonly liblsl?: { readonly lib: string; readonly tool: string; readonly ports: LslPorts };
  /** Stops the source or waits for it before the stream stops (a finite outlet). */
  readonly beforeStop?: () => Promise<void>;
}

/** What eeg-source delivered, as the CSV recording holds it. */
export interface Delivered {
  readonly channels: readonly string[];
  readonly rate: number;
  /** Per row, per channel, the float32 value. */
  readonly rows: readonly (readonly number[])[];
  /** Per row, ms since the epoch. */
  readonly times: readonly number[];
}

interface WsFrame {
  timestamp: number;
  sampleRate: number;
  channels: string[];
  data: number[][];
}

/** Runs the stream, reads every output back and checks them against each other; returns the CSV's rows. */
export async function runGuarantee(options: GuaranteeOptions): Promise<Delivered> {
  const { service, streamId, name } = options;
  const definition = {
    id: streamId,
    meta: { name },
    nodes: [
      { id: 'eeg', executable: 'eeg-source' },
      { id: 'ws', executable: 'websocket', config: { port: 0 } },
      { id: 'bdf', executable: 'recorder', config: { filename: `${name}.bdf` } },
      { id: 'edf', executable: 'recorder', config: { filename: `${name}.edf` } },
      { id: 'csv', executable: 'recorder', config: { filename: `${name}.csv`, includeTimestamps: true } },
      { id: 'lsl', executable: 'lsl-outlet' },
    ],
    pipes: ['ws', 'bdf', 'edf', 'csv', 'lsl'].map((to) => ({
      id: `to-${to}`,
      source: 'eeg',
      destination: to,
      policy: 'block',
    })),
  };
  const created = await sendJson('POST', `${service.url}/stream/streams`, definition);
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const started = await sendJson('POST', `${service.url}/stream/streams/${streamId}/signal`, {
    signal: 'start',
  });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  type NodeStatus = { id: string; port?: number; uid?: string };
  const nodes = async (): Promise<NodeStatus[]> =>
    (await json(`${service.url}/stream/streams/${streamId}/status`)).body.status.nodes as NodeStatus[];
  const wsPort = await eventually(
    async () => (await nodes()).find((n) => n.id === 'ws')?.port,
    20_000,
    'ws port',
  );
  await eventually(async () => (await nodes()).find((n) => n.id === 'lsl')?.uid, 20_000, 'LSL outlet open');

  const frames: WsFrame[] = [];
  const client = new WebSocket(`ws://127.0.0.1:${wsPort}/`);
  client.on('message', (message: Buffer) => {
    const frame = JSON.parse(message.toString()) as WsFrame;
    // The text is each sample's shortest float32 text: read as float32, it is the sample (docs/api.md §Frames).
    frames.push({ ...frame, data: frame.data.map((row) => row.map(Math.fround)) });
  });
  await new Promise((resolve) => client.once('open', resolve));
  const lslCount = Math.min(100, Math.floor(options.rows / 2));
  const reader =
    options.liblsl === undefined
      ? undefined
      : new LslTool(
          options.liblsl.tool,
          [options.liblsl.lib, 'inlet', 'name', name, String(lslCount), '30'],
          liblslEnv(options.liblsl.ports),
        );
  const wsRows = () => frames.reduce((sum, f) => sum + f.data.length, 0);
  await eventually(() => wsRows() >= options.rows, 60_000, `${options.rows} rows at the websocket client`);
  if (reader !== undefined) await reader.exited;
  await options.beforeStop?.();
  const stopped = await sendJson('POST', `${service.url}/stream/streams/${streamId}/signal`, {
    signal: 'stop',
  });
  expect(stopped.status, JSON.stringify(stopped.body)).toBe(200);
  await eventually(
    async () =>
      (await json(`${service.url}/stream/streams/${streamId}/status`)).body.status.state === 'stopped',
    20_000,
    'the stream stopped',
  );
  client.close();

  const dir = path.join(service.dataDir, 'recordings');
  const delivered = readCsv(path.join(dir, `${name}.csv`));
  expect(delivered.rows.length).toBeGreaterThanOrEqual(options.rows);

  // The websocket's rows: a run of the CSV's, the same values at the same times.
  const wsFlat = frames.flatMap((f) =>
    f.data.map((row, r) => ({ row, time: f.timestamp + (r * 1000) / f.sampleRate })),
  );
  expect(frames[0]?.channels).toEqual(delivered.channels);
  const first = indexOfRun(
    delivered.rows,
    wsFlat.map((w) => w.row),
  );
  expect(first, 'the websocket rows are a run of the recorded rows').toBeGreaterThanOrEqual(0);
  wsFlat.forEach((w, i) => {
    expect(w.row).toEqual(delivered.rows[first + i]);
    expect(Math.abs(w.time - (delivered.times[first + i] as number))).toBeLessThan(0.002);
  });

  // BDF+ and EDF+: the same rows within half a step, no clip annotation, the first row's start time.
  const files = ['bdf', 'edf'].map((format) => path.join(dir, `${name}.${format}`));
  const read = await mneRead(files);
  for (const [index, result] of read.entries()) {
    checkEdf(result, files[index] as string, delivered);
  }

  // liblsl's inlet: a run of the rows, stamped with their times on the service's LSL clock.
  if (reader !== undefined) {
    expect(reader.lines).toContain('DONE');
    const clock = (await json(`${service.url}/system/clock`)).body as { offsetMs: number };
    const samples = reader.samples();
    expect(samples).toHaveLength(lslCount);
    const at = indexOfRun(
      delivered.rows,
      samples.map((s) => s.values),
    );
    expect(at, 'the LSL samples are a run of the recorded rows').toBeGreaterThanOrEqual(0);
    // Each stamp is its row's time on the service's LSL clock as sent, to 0.1 ms. With the inlet's
    // clock correction added (an estimate of the offset between two programs on one clock) it lies
    // within half the round trip liblsl reports for that estimate (1.16; 1.12 reports none): on a
    // busy machine that round trip, not a fixed bound, is what the estimate can show.
    reader.stamps().forEach(({ sent, correction, uncertainty }, i) => {
      const due = ((delivered.times[at + i] as number) - clock.offsetMs) / 1000;
      expect(Math.abs(sent - due)).toBeLessThan(0.0001);
      if (!Number.isNaN(uncertainty))
        expect(Math.abs(sent + correction - due)).toBeLessThan(uncertainty / 2 + 0.0001);
    });
  }
  return delivered;
}

function checkEdf(result: MneResult, file: string, delivered: Delivered): void {
  expect(result.ok, result.error).toBe(true);
  expect(result.chNames).toEqual(delivered.channels);
  expect(result.sfreq).toBe(delivered.rate);
  // Only the last record is padded: the file holds the rows and at most one record more.
  expect(result.nTimes).toBeGreaterThanOrEqual(delivered.rows.length);
  expect(result.nTimes - delivered.rows.length).toBeLessThan(delivered.rate);
  expect(result.annotations.filter((a) => /clip/i.test(a.description))).toEqual([]);
  const edflib = edflibCheck(file, { samples: false });
  expect(edflib.ok).toBe(true);
  delivered.channels.forEach((_, c) => {
    const signal = edflib.signals[c];
    expect(signal).toBeDefined();
    const step =
      ((signal?.physicalMax ?? 0) - (signal?.physicalMin ?? 0)) /
      ((signal?.digitalMax ?? 0) - (signal?.digitalMin ?? 0));
    const column = result.data[c] as number[];
    delivered.rows.forEach((row, r) => {
      const value = row[c] as number;
      expect(
        Math.abs((column[r] as number) - value),
        `${path.basename(file)} ${delivered.channels[c]} row ${r}`,
      ).toBeLessThanOrEqual(step * 0.500001 + Math.abs(value) * 1e-9);
    });
  });
  const [year, month, day, hour, minute, second] = edflib.start as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const startMs = Date.UTC(year, month - 1, day, hour, minute, second) + edflib.startSubsecond / 1e4;
  expect(Math.abs(startMs - (delivered.times[0] as number))).toBeLessThan(0.001);
}

/** The CSV recording's rows: float32 values and each row's time. */
export function readCsv(file: string): Delivered {
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  const header = (lines[0] ?? '').split(',');
  expect(header[0]).toBe('timestamp');
  const rows: number[][] = [];
  const times: number[] = [];
  for (const line of lines.slice(1)) {
    const [time, ...values] = line.split(',');
    times.push(Number(time));
    rows.push(values.map((v) => Math.fround(Number(v))));
  }
  const rate = times.length > 1 ? Math.round(1000 / ((times[1] as number) - (times[0] as number))) : 0;
  return { channels: header.slice(1), rate, rows, times };
}

/** Where `run` starts in `rows` (each value equal), or −1. */
function indexOfRun(rows: readonly (readonly number[])[], run: readonly (readonly number[])[]): number {
  const same = (a: readonly number[] | undefined, b: readonly number[] | undefined) =>
    a !== undefined && b !== undefined && a.length === b.length && a.every((v, i) => v === b[i]);
  for (let start = 0; start + run.length <= rows.length; start++) {
    if (run.every((row, i) => same(rows[start + i], row))) return start;
  }
  return -1;
}

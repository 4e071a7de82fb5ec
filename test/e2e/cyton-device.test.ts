/**
 * `headsetd serve --device cyton:<pty>` end to end, against the board emulator on a socat
 * pseudo-terminal pair: a stream eeg-source → recorder (BDF+) and eeg-source → band-pass →
 * websocket. The BDF+ file, read back by EDFlib, holds exactly the µV the board sent (within one
 * BDF step), under the montage's labels, at 250 Hz; the websocket frames are scipy's band-pass of
 * those values; packets the board drops are announced (`samples_lost`), marked (a discontinuity in
 * the frames, an annotation in the file) and never filled in; a board reset mid-stream is lost and
 * restored and the stream goes on. GET /system/status lists the capabilities, and a motor or LED
 * path answers 409 not_supported. The board silent while streaming (its port still open), and the
 * dongle unplugged: health degraded, naming the board and what was seen, until it is back.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { microvoltsPerCount } from '../../src/device/cyton/protocol.js';
import { openCytonPort } from '../../src/device/cyton/link.js';
import type { SerialLink } from '../../src/device/cyton/link.js';
import type { FrameClient } from '../runtime/helpers.js';
import { CytonEmulator, emulatorCounts } from '../support/cyton-emulator.js';
import { edflibCheck } from '../support/edf-check.js';
import {
  annotationSamples,
  EventClient,
  recordedRows,
  recordedSamples,
  scipyBandpass,
  signalRate,
  signalStream,
  startRecordingStream,
} from '../support/live-e2e.js';
import { type PtyPair, ptyPair } from '../support/pty-pair.js';
import { json, type Service, startService } from '../support/service.js';
import { eventually } from '../support/wait.js';

const RATE = 250;
const STREAM = '3c1b7e52-6a0d-4f8e-9b21-c4d5e6f7a8b9';
const SCALE = microvoltsPerCount(24);
/** The default montage's names, channel 1 first, as a recording labels them. */
const LABELS = ['Fp1', 'Fp2', 'C3', 'C4', 'P7', 'P8', 'O1', 'O2'];
const DROPPED = 7;
const RAILED_STREAM = '5d2e8f63-7b1e-4a9f-8c32-d5e6f7a8b9c0';

/** A node's metrics in its stream's status. */
async function nodeMetrics(service: Service, id: string, node: string): Promise<Record<string, number>> {
  const status = await json(`${service.url}/stream/streams/${id}/status`);
  const found = (status.body.status.nodes as { id: string; metrics: Record<string, number> }[]).find(
    (n) => n.id === node,
  );
  return found?.metrics ?? {};
}

let pair: PtyPair | undefined;
let boardLink: SerialLink | undefined;
let emulator: CytonEmulator | undefined;
let service: Service | undefined;
let events: EventClient | undefined;

/** What beforeAll set up, for the tests. */
function rig(): {
  pair: PtyPair;
  emulator: CytonEmulator;
  service: Service;
  events: EventClient;
} {
  if (pair === undefined || emulator === undefined || service === undefined || events === undefined) {
    throw new Error('the service did not start');
  }
  return { pair, emulator, service, events };
}

beforeAll(async () => {
  pair = await ptyPair();
  boardLink = await openCytonPort(pair.board);
  emulator = new CytonEmulator(boardLink);
  service = await startService({ args: ['--device', `cyton:${pair.host}`] });
  events = await EventClient.connect(service);
}, 60_000);

afterAll(async () => {
  events?.close();
  await service?.stop();
  emulator?.stop();
  await boardLink?.close();
  await pair?.kill();
});

describe('headsetd on an OpenBCI Cyton (emulated, over a pty)', () => {
  test('GET /system/status lists the capabilities; motor and LED paths answer 409 not_supported', async () => {
    const { pair, service } = rig();
    const status = await json(`${service.url}/system/status`);
    expect(status.status).toBe(200);
    expect(status.body.status.capabilities).toEqual({
      eeg: true,
      impedance: true,
      motors: false,
      leds: false,
      imu: false,
      battery: false,
      peripheralBus: false,
    });
    for (const [method, route, capability] of [
      ['GET', '/system/motors/position', 'motors'],
      ['GET', '/system/led/state', 'leds'],
    ] as const) {
      const answer = await json(`${service.url}${route}`, { method });
      expect(answer.status, route).toBe(409);
      expect(answer.body.success).toBe(false);
      expect(answer.body.error.code).toBe('not_supported');
      expect(answer.body.error.message).toContain(pair.host);
      expect(answer.body.error.details.capability).toBe(capability);
    }
  });

  test('BDF+ holds the exact µV; the websocket the band-passed values; a drop and a reset are marked, never filled', async () => {
    const { emulator, service, events } = rig();
    const ws: FrameClient = await startRecordingStream(service, STREAM, 'cyton.bdf');
    await eventually(async () => (await recordedSamples(service, STREAM)) >= RATE, 20_000, '1 s recorded');
    emulator.drop(DROPPED);
    await eventually(() => events.of('samples_lost').length > 0, 20_000, 'the samples_lost event');
    // The count is kept, not only announced: in the device's status and the eeg-source's metrics.
    await eventually(
      async () => (await json(`${service.url}/system/status`)).body.status.amplifier?.lostSamples === DROPPED,
      20_000,
      'status.amplifier.lostSamples',
    );
    const amplifier = (await json(`${service.url}/system/status`)).body.status.amplifier;
    expect(Object.keys(amplifier.counters).sort()).toEqual(['resyncs', 'skippedBytes', 'tornPackets']);
    await eventually(
      async () => (await nodeMetrics(service, STREAM, 'eeg')).lostSamples === DROPPED,
      20_000,
      "the eeg-source's metric lostSamples",
    );
    const afterDrop = await recordedSamples(service, STREAM);
    await eventually(
      async () => (await recordedSamples(service, STREAM)) >= afterDrop + RATE,
      20_000,
      '1 s recorded after the drop',
    );
    emulator.resetMidStream();
    await eventually(() => events.of('device_restored').length > 0, 20_000, 'the device_restored event');
    const afterReset = await recordedSamples(service, STREAM);
    await eventually(
      async () => (await recordedSamples(service, STREAM)) >= afterReset + RATE / 2,
      20_000,
      'samples recorded after the reset',
    );
    await signalStream(service, STREAM, 'stop');
    ws.close();

    // The events: the loss with its count, the board lost then restored.
    expect(events.of('samples_lost').map((e) => e.message)).toEqual([
      expect.stringContaining(`lost ${DROPPED} samples per channel`),
    ]);
    expect(events.of('device_lost')).toHaveLength(1);
    expect(events.of('device_restored')).toHaveLength(1);

    // The file, as EDFlib reads it: BDF+, the montage's labels, 250 Hz, µV.
    const file = edflibCheck(path.join(service.dataDir, 'recordings', 'cyton.bdf'));
    expect(file.ok).toBe(true);
    expect(file.filetype).toBe(3);
    const signals = file.signals.filter((s) => s.label.trim() !== 'BDF Annotations');
    expect(signals.map((s) => s.label.trim())).toEqual(LABELS);
    expect(signalRate(file)).toBe(RATE);
    expect(new Set(signals.map((s) => s.samplesPerRecord)).size).toBe(1);
    expect(signals.every((s) => s.physicalDimension.trim() === 'uV')).toBe(true);

    // Every sample that arrived, exact within one BDF step; channel 1 carries the board's row.
    const n = recordedRows(file);
    const rows: number[] = [];
    const steps = signals.map((s) => (s.physicalMax - s.physicalMin) / (s.digitalMax - s.digitalMin));
    const matches = (i: number, row: number): boolean =>
      signals.every(
        (s, c) =>
          Math.abs((s.samples?.[i] as number) - Math.fround(emulatorCounts(row, c) * SCALE)) <=
          (steps[c] as number),
      );
    for (let i = 0; i < n; i++) {
      // Channel 1 holds the row in counts, stored within half a BDF step (about half a count at
      // the range that covers the most negative code): the row is the one of the three nearest
      // whose every channel matches.
      const near = Math.round((signals[0]?.samples?.[i] as number) / SCALE);
      const row = [near, near - 1, near + 1].find((r) => matches(i, r));
      expect(row, `sample ${i}: no row the board sent has these values`).toBeDefined();
      rows.push(row as number);
    }
    // From the board's first packet on, in order, nothing filled in: one jump over the dropped packets, one restart at row 0 after
    // the reset; everything else one row after the other.
    const breaks = rows
      .slice(1)
      .map((row, i) => ({ at: i + 1, from: rows[i] as number, to: row }))
      .filter((b) => b.to !== b.from + 1);
    expect(rows[0]).toBe(0);
    expect(breaks.map((b) => b.to - b.from)[0]).toBe(DROPPED + 1);
    expect(breaks).toHaveLength(2);
    expect(breaks[1]?.to).toBe(0);
    const [drop, reset] = breaks.map((b) => b.at) as [number, number];

    // The file annotates both, at the first sample after each.
    const notes = annotationSamples(file, RATE).filter(
      (a) => !a.text.startsWith('Recording') && a.text !== '',
    );
    for (const at of [drop, reset]) {
      expect(
        notes.some((a) => Math.abs(a.sample - at) <= 1 && /Gap|Discontinuity|lost/.test(a.text)),
        `an annotation at sample ${at}: ${JSON.stringify(notes)}`,
      ).toBe(true);
    }
    // The drop is annotated as a loss with its count, not as a pause.
    const atDrop = notes.filter((a) => Math.abs(a.sample - drop) <= 1).map((a) => a.text);
    expect(atDrop).toContain(`Gap of 0.028 s: ${DROPPED} samples lost upstream`);
    expect(atDrop.some((t) => t.includes('paused'))).toBe(false);

    // The websocket frames: the montage's channels at 250 Hz; discontinuities at the drop and the
    // reset; between them exactly the rows the file has there, band-passed as scipy does it.
    const frames = ws.frames.map((r) => r.frame);
    expect(frames.every((f) => f.sampleRate === RATE && f.channels.join() === LABELS.join())).toBe(true);
    const marks = frames.map((f, i) => (f.discontinuity === true ? i : -1)).filter((i) => i >= 0);
    expect(marks.length).toBeGreaterThanOrEqual(2);
    const [afterLoss, afterRestart] = marks.slice(-2) as [number, number];
    const filtered = frames.slice(afterLoss, afterRestart).flatMap((f) => f.data);
    expect(filtered).toHaveLength(reset - drop);
    const input = rows
      .slice(drop, reset)
      .map((row) => LABELS.map((_, c) => Math.fround(emulatorCounts(row, c) * SCALE)));
    const expected = await scipyBandpass(input, RATE);
    let worst = 0;
    filtered.forEach((row, i) => {
      row.forEach((v, c) => {
        worst = Math.max(worst, Math.abs(v - (expected[i]?.[c] as number)));
      });
    });
    // float32 frames of values up to ~4e5 µV: a few float32 steps.
    expect(worst).toBeLessThan(0.5);
    // Frames go on after the reset, one after another.
    expect(frames.slice(afterRestart).flatMap((f) => f.data).length).toBeGreaterThan(0);
  }, 90_000);

  test('a railed channel (the most negative code, −187 500.022 µV) records in BDF without clipping (was: a Clipped annotation every few frames)', async () => {
    const { emulator, service } = rig();
    emulator.rail(7, -8388608);
    try {
      await startRecordingStream(service, RAILED_STREAM, 'railed.bdf').then((ws) => {
        ws.close();
      });
      await eventually(
        async () => (await recordedSamples(service, RAILED_STREAM)) >= RATE,
        20_000,
        '1 s recorded',
      );
      await signalStream(service, RAILED_STREAM, 'stop');
    } finally {
      emulator.rail(7, undefined);
    }
    expect((await nodeMetrics(service, RAILED_STREAM, 'rec')).clippedSamples).toBe(0);
    const file = edflibCheck(path.join(service.dataDir, 'recordings', 'railed.bdf'));
    expect(file.ok).toBe(true);
    expect(file.annotations.filter((a) => /Clipped/.test(a.text))).toEqual([]);
    const o2 = file.signals.find((s) => s.label.trim() === 'O2');
    const step =
      ((o2?.physicalMax ?? 0) - (o2?.physicalMin ?? 0)) / ((o2?.digitalMax ?? 0) - (o2?.digitalMin ?? 0));
    const railed = Math.fround(-8388608 * SCALE);
    const samples = (o2?.samples ?? []).slice(0, recordedRows(file));
    expect(samples.length).toBeGreaterThanOrEqual(RATE);
    for (const v of samples) expect(Math.abs(v - railed)).toBeLessThanOrEqual(step);
  }, 60_000);

  test('a Cyton that answers every command but sends no sample: lost on every poll until it sends (was: healthy in most polls)', async () => {
    const { emulator, service, events } = rig();
    const health = async () => (await json(`${service.url}/system/healthz`)).body;
    emulator.mute = true;
    const lostBefore = events.of('device_lost').length;
    const restoredBefore = events.of('device_restored').length;
    try {
      await signalStream(service, STREAM, 'start');
      await eventually(() => events.of('device_lost').length > lostBefore, 20_000, 'the device_lost event');
      // Through two more resets, each answered, each start command ignored: degraded at every poll.
      const resets = emulator.commands.filter((c) => c === 'v').length;
      let polls = 0;
      while (emulator.commands.filter((c) => c === 'v').length < resets + 2) {
        const now = await health();
        expect(now.status, `poll ${polls}`).toBe('degraded');
        expect(now.problems).toEqual([expect.stringMatching(/^The OpenBCI Cyton \(.*\) was lost: /)]);
        expect((await json(`${service.url}/system/status`)).body.status.lost).toMatch(/ was lost: /);
        polls++;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(polls).toBeGreaterThan(5);
      // Never reported back while it sends nothing.
      expect(events.of('device_restored').length).toBe(restoredBefore);
    } finally {
      emulator.mute = false;
    }
    await eventually(async () => (await health()).status === 'healthy', 20_000, 'healthy once it sends');
    await signalStream(service, STREAM, 'stop');
  }, 60_000);

  test('healthz said healthy while the Cyton was silent, its port open: now degraded saying no sample came, healthy again once it answers', async () => {
    const { emulator, service, events } = rig();
    const health = async () => (await json(`${service.url}/system/healthz`)).body;
    await signalStream(service, STREAM, 'start');
    await eventually(() => emulator.streaming, 20_000, 'the board to stream');
    expect((await health()).status).toBe('healthy');
    const lostBefore = events.of('device_lost').length;
    const restoredBefore = events.of('device_restored').length;
    // Out of range for 5 s: no packet, no answer, the port open; back on its own.
    emulator.goSilent({ forMs: 5000, deaf: true });
    await eventually(() => events.of('device_lost').length > lostBefore, 20_000, 'the device_lost event');
    const degraded = await health();
    expect(degraded.status).toBe('degraded');
    expect(degraded.problems).toEqual([
      expect.stringMatching(
        /^The OpenBCI Cyton \(.*\) was lost: No sample from the Cyton on .* for [\d.]+ s/,
      ),
    ]);
    await eventually(
      () => events.of('device_restored').length > restoredBefore,
      20_000,
      'the device_restored event',
    );
    expect(await health()).toMatchObject({ status: 'healthy', problems: [] });
    const after = await recordedSamples(service, STREAM);
    await eventually(
      async () => (await recordedSamples(service, STREAM)) >= after + RATE / 2,
      20_000,
      'samples recorded after the silence',
    );
    await signalStream(service, STREAM, 'stop');
  }, 60_000);

  test('healthz said healthy while the Cyton was unplugged: now degraded naming it, status.lost, healthy again once back', async () => {
    const { pair, service, events } = rig();
    const health = async () => (await json(`${service.url}/system/healthz`)).body;
    expect((await health()).status).toBe('healthy');
    expect((await json(`${service.url}/system/status`)).body.status.lost).toBeUndefined();
    const lostBefore = events.of('device_lost').length;
    const restoredBefore = events.of('device_restored').length;
    rig().emulator.stop();
    await boardLink?.close();
    await pair.kill();
    await eventually(() => events.of('device_lost').length > lostBefore, 20_000, 'the device_lost event');
    const degraded = await health();
    expect(degraded.status).toBe('degraded');
    expect(degraded.problems).toEqual([expect.stringMatching(/^The OpenBCI Cyton \(.*\) was lost: .*port/)]);
    expect((await json(`${service.url}/system/status`)).body.status.lost).toBe(degraded.problems[0]);
    // Plugged back: the board answers on the same path.
    await pair.restart();
    boardLink = await openCytonPort(pair.board);
    emulator = new CytonEmulator(boardLink);
    await eventually(
      () => events.of('device_restored').length > restoredBefore,
      20_000,
      'the device_restored event',
    );
    expect(await health()).toMatchObject({ status: 'healthy', problems: [] });
    expect((await json(`${service.url}/system/status`)).body.status.lost).toBeUndefined();
  }, 60_000);
});

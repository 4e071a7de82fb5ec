/**
 * Conformance of the `lsl-outlet` built-in with real liblsl inlets (1.12 from its only binary
 * distribution, in every checkout; 1.16.2 built from source where HEADSETD_ORACLES is set, else
 * its tests skip saying how to enable them): they resolve the outlet by name and by type, read its
 * full info, receive every sample of a 30 s stream (sent faster than real time) with exact values
 * (NaN and ±Infinity included) and with the frames' own times as time stamps (exact as sent; with
 * liblsl's clock correction added, within the uncertainty 1.16 reports for it), over protocol 1.10
 * (and 1.00 for 1.16),
 * and recover after the outlet is restarted (1.16). Everything stays on loopback, on this test's
 * own ports.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { LOOPBACK_ONLY } from '../../src/core/access-policy.js';
import type { Frame } from '../../src/core/frame.js';
import type { NodeContext, NodeInstance } from '../../src/core/node.js';
import { createLslOutlet } from '../../src/streams/executables/lsl-outlet.js';
import { lslNow, unixMsToLsl, wallNowMs } from '../../src/lsl/clock.js';
import {
  LIBLSL_VERSIONS,
  liblslEnv,
  liblslMissing,
  liblslOf,
  LslTool,
  skipWithout,
} from '../support/liblsl.js';

const PORTS = { multicastPort: 27571, basePort: 27572, portRange: 16 };
const RATE = 250;
const CHANNELS = ['FP1', 'FP2', 'C3', 'C4', 'O1', 'O2', 'T7', 'T8'];
const SECONDS = 30;
const FRAME_SAMPLES = 25;

interface Harness {
  node: NodeInstance;
  info: Record<string, unknown>;
  /** Resolves when `info[key]` satisfies `test`. */
  until(key: string, test: (value: unknown) => boolean): Promise<void>;
}

function outletNode(name: string): Harness {
  const info: Record<string, unknown> = {};
  const waiters: (() => void)[] = [];
  const context: NodeContext = {
    streamId: '3f9c1e4a-2b7d-4c8e-9a1f-5d6e7f8a9b0c',
    streamName: name,
    nodeId: 'lsl',
    config: {},
    dataDir: '/nonexistent',
    access: { ...LOOPBACK_ONLY, lsl: { interfaces: [], sessionId: 'default', knownPeers: [], ...PORTS } },
    emit: () => undefined,
    log: () => undefined,
    fail: (error) => {
      throw error;
    },
    setInfo: (patch) => {
      Object.assign(info, patch);
      for (const waiter of waiters.splice(0)) waiter();
    },
    countDropped: () => undefined,
    trackProcessGroup: () => undefined,
    untrackProcessGroup: () => undefined,
  };
  const node = createLslOutlet(context);
  const until = async (key: string, check: (value: unknown) => boolean) => {
    while (!check(info[key])) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return { node, info, until };
}

/**
 * Sample i, channel c: distinct, not round, exactly representable in float32; now and then NaN,
 * +Infinity or −Infinity, which the outlet passes on as they are.
 */
function value(i: number, c: number): number {
  if (c === 1 && i % 997 === 5) return Number.NaN;
  if (c === 2 && i % 1009 === 7) return Number.POSITIVE_INFINITY;
  if (c === 3 && i % 1013 === 9) return Number.NEGATIVE_INFINITY;
  return Math.fround(Math.sin(i * 0.01 + c) * 100 + i * 0.001);
}

let seq = 0;
function frame(start: number, count: number, t0Ms: number): Frame {
  const data = new Float32Array(count * CHANNELS.length);
  for (let i = 0; i < count; i++)
    for (let c = 0; c < CHANNELS.length; c++) data[i * CHANNELS.length + c] = value(start + i, c);
  return {
    seq: seq++,
    timestamp: t0Ms + (start * 1000) / RATE,
    sampleRate: RATE,
    channels: CHANNELS,
    data,
  };
}

/** Sends samples [from, to) in frames, yielding between frames so the sockets drain. */
async function send(node: NodeInstance, from: number, to: number, t0Ms: number): Promise<void> {
  for (let i = from; i < to; i += FRAME_SAMPLES) {
    node.onFrame?.('in', frame(i, Math.min(FRAME_SAMPLES, to - i), t0Ms));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe.for(LIBLSL_VERSIONS)('liblsl %s inlets read the lsl-outlet built-in', (version) => {
  let lib: { lib: string; tool: string };
  const tools: LslTool[] = [];
  const harnesses: Harness[] = [];
  // Each version's outlets have names of their own, so that no inlet reads another's.
  const conformance = `Headset Conformance ${version}`;
  const restart = `Headset Restart ${version}`;

  beforeAll(async () => {
    if (liblslMissing(version) === undefined) lib = await liblslOf(version);
  }, 240_000);

  afterAll(async () => {
    for (const tool of tools) tool.kill();
    for (const h of harnesses) await h.node.stop();
  });

  function inlet(by: 'name' | 'type', value: string, count: number, extraCfg = ''): LslTool {
    const tool = new LslTool(
      lib.tool,
      [lib.lib, 'inlet', by, value, String(count), '10'],
      liblslEnv(PORTS, extraCfg),
    );
    tools.push(tool);
    return tool;
  }

  test('every sample of a 30 s stream, exact values, exact timestamps corrected within the uncertainty of the inlet clock, by name and type, protocol 1.10 (and 1.00 with 1.16)', async (context) => {
    skipWithout(version, context);
    const h = outletNode(conformance);
    harnesses.push(h);
    await h.node.start();
    // Recorded 30 s ago: the samples' timestamps lie in the past, as a backlog's would.
    const t0Ms = wallNowMs() - SECONDS * 1000;
    const total = SECONDS * RATE;
    h.node.onFrame?.('in', frame(0, 1, t0Ms));
    await h.until('uid', (uid) => typeof uid === 'string');

    const before = lslNow();
    const readers = [
      inlet('name', conformance, total),
      inlet('type', 'EEG', total),
      // Protocol 1.00 is checked with liblsl 1.16.
      ...(version === '1.16'
        ? [inlet('name', conformance, total, '[tuning]\nUseProtocolVersion = 100\n')]
        : []),
    ];
    for (const reader of readers) expect(await reader.waitFor('OPEN')).toBe('OPEN 0');
    await h.until('consumers', (n) => n === readers.length);
    // liblsl's clock is the one samples are stamped on.
    for (const reader of readers) {
      const clock = Number((await reader.waitFor('CLOCK ')).split(' ')[1]);
      expect(clock).toBeGreaterThanOrEqual(before);
      expect(clock).toBeLessThanOrEqual(lslNow());
    }

    await send(h.node, 1, total + 1, t0Ms);
    for (const reader of readers) {
      await reader.exited;
      expect(reader.lines).toContain('DONE');
      const xml = reader.lines.slice(reader.lines.findIndex((l) => l.startsWith('FULLINFO'))).join('\n');
      expect(xml).toContain(`<name>${conformance}</name>`);
      expect(xml).toContain('<nominal_srate>250');
      for (const label of CHANNELS) expect(xml).toContain(`<label>${label}</label>`);
      expect(xml).toContain('<unit>microvolts</unit>');
      const samples = reader.samples();
      expect(samples).toHaveLength(total);
      samples.forEach((sample, k) => {
        expect(sample.values).toEqual(CHANNELS.map((_, c) => value(k + 1, c)));
      });
      // The stamps arrive as sent: each sample's frame time on the LSL clock, to the tool's printing
      // (1 ns) and float rounding. What an application reads adds liblsl's clock correction, an
      // estimate of the offset between the two programs' clocks, here the same clock: the estimate
      // is off by at most half the round trip of the probe it came from, which liblsl 1.16 reports
      // as its uncertainty. That round trip is the machine's: on a loaded one, milliseconds.
      const stamps = reader.stamps();
      expect(stamps).toHaveLength(total);
      let worstSent = 0;
      let worstCorrected = 0;
      stamps.forEach(({ sent, correction, uncertainty }, k) => {
        const due = unixMsToLsl(t0Ms + ((k + 1) * 1000) / RATE);
        worstSent = Math.max(worstSent, Math.abs(sent - due));
        if (version === '1.16') {
          expect(uncertainty).toBeGreaterThan(0);
          worstCorrected = Math.max(worstCorrected, Math.abs(sent + correction - due) - uncertainty / 2);
        }
      });
      expect(worstSent).toBeLessThan(1e-6);
      // How far past half its round trip the corrected stamp lies (≤ 0: within it), to the µs.
      expect(worstCorrected).toBeLessThan(1e-6);
    }
    expect(h.info.samplesDropped).toBe(0);
    await h.node.stop();
  }, 120_000);

  test('an inlet recovers after the outlet restarts (same source id, new uid)', async (context) => {
    // Not yet explained: a liblsl 1.12 inlet reads no sample of the restarted outlet within a minute.
    context.skip(version === '1.12', 'checked with liblsl 1.16 only: a 1.12 inlet does not recover yet');
    skipWithout(version, context);
    const first = outletNode(restart);
    harnesses.push(first);
    await first.node.start();
    const t0Ms = wallNowMs();
    first.node.onFrame?.('in', frame(0, 1, t0Ms));
    await first.until('uid', (uid) => typeof uid === 'string');
    const reader = inlet('name', restart, 200);
    await first.until('consumers', (n) => n === 1);
    await send(first.node, 1, 101, t0Ms);
    await first.node.stop();

    const second = outletNode(restart);
    harnesses.push(second);
    await second.node.start();
    second.node.onFrame?.('in', frame(1000, 1, t0Ms));
    await second.until('uid', (uid) => typeof uid === 'string');
    expect(second.info.uid).not.toBe(first.info.uid);
    expect(second.info.sourceId).toBe(first.info.sourceId);
    await second.until('consumers', (n) => n === 1);
    await send(second.node, 1001, 1101, t0Ms);
    await reader.exited;
    expect(reader.lines).toContain('DONE');
    const values = reader.samples().map((s) => s.values[0]);
    expect(values).toEqual([
      ...Array.from({ length: 100 }, (_, k) => value(1 + k, 0)),
      ...Array.from({ length: 100 }, (_, k) => value(1001 + k, 0)),
    ]);
  }, 60_000);
});

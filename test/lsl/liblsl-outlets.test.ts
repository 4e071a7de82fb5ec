/**
 * The `lsl-inlet` built-in reads real liblsl outlets (1.12 from its only binary distribution, in
 * every checkout; 1.16.2 built from source where HEADSETD_ORACLES is set, else its tests skip saying
 * how to enable them): it finds them by name and by type, emits frames with their channel labels
 * and rate, every value exact and every sample's time the outlet's timestamp on this machine's
 * clock; and it recovers when the outlet's program is restarted. Loopback only, on this test's ports.
 */
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { LOOPBACK_ONLY } from '../../src/core/access-policy.js';
import type { Frame } from '../../src/core/frame.js';
import type { NodeContext, NodeInstance } from '../../src/core/node.js';
import { createLslInlet } from '../../src/streams/executables/lsl-inlet.js';
import { unixMsToLsl } from '../../src/lsl/clock.js';
import {
  LIBLSL_VERSIONS,
  liblslEnv,
  liblslMissing,
  liblslOf,
  LslTool,
  skipWithout,
} from '../support/liblsl.js';

const PORTS = { multicastPort: 30571, basePort: 30572, portRange: 16 };
const CHANNELS = 4;
const RATE = 500;

interface Received {
  frames: Frame[];
  info: Record<string, unknown>;
  /** Resolves once `count` samples arrived. */
  samples(count: number): Promise<void>;
}

function inletNode(config: Record<string, unknown>): { node: NodeInstance; received: Received } {
  const frames: Frame[] = [];
  const info: Record<string, unknown> = {};
  const waiters: (() => void)[] = [];
  const context: NodeContext = {
    streamId: '7a2b3c4d-5e6f-4a1b-8c9d-0e1f2a3b4c5d',
    nodeId: 'in',
    config,
    dataDir: '/nonexistent',
    access: { ...LOOPBACK_ONLY, lsl: { interfaces: [], sessionId: 'default', knownPeers: [], ...PORTS } },
    emit: (_port, frame) => {
      frames.push(frame);
      for (const waiter of waiters.splice(0)) waiter();
    },
    log: () => undefined,
    fail: (error) => {
      throw error;
    },
    setInfo: (patch) => Object.assign(info, patch),
    countDropped: () => undefined,
    trackProcessGroup: () => undefined,
    untrackProcessGroup: () => undefined,
  };
  const total = () => frames.reduce((sum, f) => sum + f.data.length / f.channels.length, 0);
  const received: Received = {
    frames,
    info,
    async samples(count) {
      while (total() < count) await new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
  return { node: createLslInlet(context), received };
}

/** Every sample received: its time on the LSL clock and its values. */
function flatten(frames: readonly Frame[]): { t: number; values: number[] }[] {
  return frames.flatMap((frame) => {
    const n = frame.data.length / frame.channels.length;
    return Array.from({ length: n }, (_, i) => ({
      t: unixMsToLsl(frame.timestamp + (i * 1000) / frame.sampleRate),
      values: Array.from(frame.data.subarray(i * CHANNELS, (i + 1) * CHANNELS)),
    }));
  });
}

describe.for(LIBLSL_VERSIONS)('lsl-inlet reads liblsl %s outlets', (version) => {
  let lib: { lib: string; tool: string };
  const nodes: NodeInstance[] = [];
  const tools: LslTool[] = [];

  beforeAll(async () => {
    if (liblslMissing(version) === undefined) lib = await liblslOf(version);
  }, 240_000);

  afterEach(async () => {
    for (const tool of tools.splice(0)) tool.kill();
    for (const node of nodes.splice(0)) await node.stop();
  });

  function outlet(name: string, count: number): LslTool {
    const tool = new LslTool(
      lib.tool,
      [lib.lib, 'outlet', name, String(CHANNELS), String(RATE), String(count)],
      liblslEnv(PORTS),
    );
    tools.push(tool);
    return tool;
  }

  test('by name and by type: labels, rate, exact values and times', async (context) => {
    skipWithout(version, context);
    for (const config of [{ name: `Lab Amp ${version}` }, { type: 'EEG' }]) {
      const count = 1000;
      const source = outlet(`Lab Amp ${version}`, count);
      await source.waitFor('READY');
      const { node, received } = inletNode(config);
      nodes.push(node);
      await node.start();
      await received.samples(count);
      const start = Number((await source.waitFor('START ')).split(' ')[1]);
      const frame = received.frames[0];
      expect(frame?.channels).toEqual(['X1', 'X2', 'X3', 'X4']);
      expect(frame?.sampleRate).toBe(RATE);
      const samples = flatten(received.frames);
      expect(samples).toHaveLength(count);
      samples.forEach((sample, i) => {
        expect(sample.values).toEqual(Array.from({ length: CHANNELS }, (_, c) => i * CHANNELS + c + 0.25));
        // The outlet's stamps through the inlet's time correction, which a busy machine measures
        // only to within half a round trip of a few ms: 5 ms, where a wrong mapping is off by seconds.
        expect(Math.abs(sample.t - (start + i / RATE))).toBeLessThan(0.005);
      });
      expect(received.info.resolved).toMatchObject({
        name: `Lab Amp ${version}`,
        sourceId: 'lsltool-outlet',
      });
      expect(typeof received.info.clockOffsetMs).toBe('number');
      expect(Math.abs(received.info.clockOffsetMs as number)).toBeLessThan(5);
      await node.stop();
      nodes.length = 0;
      source.kill();
      await source.exited;
    }
  }, 120_000);

  test('recovers when the outlet program is restarted (same source id, new uid)', async (context) => {
    skipWithout(version, context);
    const first = outlet(`Restarting Amp ${version}`, 300);
    await first.waitFor('READY');
    const { node, received } = inletNode({ name: `Restarting Amp ${version}` });
    nodes.push(node);
    await node.start();
    await received.samples(300);
    const uid = (received.info.resolved as { uid: string }).uid;
    first.kill();
    await first.exited;
    const second = outlet(`Restarting Amp ${version}`, 300);
    await received.samples(600);
    await second.waitFor('SENT');
    expect((received.info.resolved as { uid: string }).uid).not.toBe(uid);
    expect(received.info.recoveries).toBe(1);
    const values = flatten(received.frames).map((s) => s.values[1]);
    expect(values).toEqual([
      ...Array.from({ length: 300 }, (_, i) => i * CHANNELS + 1.25),
      ...Array.from({ length: 300 }, (_, i) => i * CHANNELS + 1.25),
    ]);
    const resumed = received.frames.find((f, k) => k > 0 && f.discontinuity === true);
    expect(resumed).toBeDefined();
  }, 60_000);
});

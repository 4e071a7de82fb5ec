/**
 * headsetd's LSL outlets and inlets share the machine with liblsl's: with two liblsl outlets (1.16
 * and 1.12, started before and after headsetd's), a liblsl inlet, an `lsl-outlet` and `lsl-inlet`
 * nodes all running at once on the same discovery port, every inlet finds every outlet it asks for
 * and reads it. Loopback only (liblsl's `machine` scope), on this test's ports.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Frame } from '../../src/core/frame.js';
import { wallNowMs } from '../../src/lsl/clock.js';
import { type Liblsl, liblsl, liblslAvailable, liblslEnv, LslTool } from '../support/liblsl.js';
import { type LslNode, lslInletNode, lslOutletNode } from '../support/lsl-nodes.js';

const PORTS = { multicastPort: 31571, basePort: 31572, portRange: 16 };
const SAMPLES = 50;

describe.skipIf(!liblslAvailable)('headsetd and liblsl outlets and inlets on one machine', () => {
  let lib: Liblsl;
  const tools: LslTool[] = [];
  const nodes: LslNode[] = [];

  beforeAll(async () => {
    lib = await liblsl();
  }, 240_000);

  afterAll(async () => {
    for (const tool of tools) tool.kill();
    for (const h of nodes) await h.node.stop();
  });

  function liblslOutlet(library: string, name: string): LslTool {
    const tool = new LslTool(
      lib.tool,
      [library, 'rounds', name, 'Gaze', '3', '100', String(SAMPLES), '1'],
      liblslEnv(PORTS),
      true,
    );
    tools.push(tool);
    return tool;
  }

  function resolveWithLiblsl(prop: string, value: string, minimum: number): LslTool {
    const tool = new LslTool(
      lib.tool,
      [lib.lib116, 'resolve', prop, value, String(minimum), '10'],
      liblslEnv(PORTS),
    );
    tools.push(tool);
    return tool;
  }

  test('a headsetd outlet hides none of the machine’s liblsl outlets, and every inlet finds every outlet', async () => {
    const first = liblslOutlet(lib.lib116, 'Lab Gaze A');
    await first.waitFor('READY');

    const headset = lslOutletNode(PORTS, 'Headset Coexist');
    nodes.push(headset);
    await headset.node.start();
    const frame = (seq: number): Frame => ({
      seq,
      timestamp: wallNowMs(),
      sampleRate: 250,
      channels: ['FP1', 'FP2'],
      data: Float32Array.from([seq, -seq]),
    });
    headset.node.onFrame?.('in', frame(0));
    await headset.until(() => typeof headset.info.uid === 'string');

    const second = liblslOutlet(lib.lib112 ?? lib.lib116, 'Lab Gaze B');
    await second.waitFor('READY');

    // liblsl's inlet: both Gaze outlets by type, headsetd's by name.
    const byType = resolveWithLiblsl('type', 'Gaze', 2);
    const byName = resolveWithLiblsl('name', 'Headset Coexist', 1);
    await byType.exited;
    await byName.exited;
    const found = (tool: LslTool) =>
      tool.lines.filter((line) => line.startsWith('FOUND ')).map((line) => line.slice(6).split('\t')[0]);
    expect(found(byType).sort()).toEqual(['Lab Gaze A', 'Lab Gaze B']);
    expect(found(byName)).toEqual(['Headset Coexist']);

    // headsetd's inlets: each liblsl outlet and headsetd's own.
    const readers = ['Lab Gaze A', 'Lab Gaze B', 'Headset Coexist'].map((name, k) => {
      const reader = lslInletNode(PORTS, { name }, `in${k}`);
      nodes.push(reader);
      return reader;
    });
    for (const reader of readers) await reader.node.start();
    const [readA, readB, readOwn] = readers as [LslNode, LslNode, LslNode];
    await readA.until(() => readA.samples() >= SAMPLES);
    await readB.until(() => readB.samples() >= SAMPLES);
    expect(readA.info.resolved).toMatchObject({ name: 'Lab Gaze A', type: 'Gaze' });
    expect(readB.info.resolved).toMatchObject({ name: 'Lab Gaze B', type: 'Gaze' });
    await headset.until(() => headset.info.consumers === 1);
    for (let seq = 1; seq <= 5; seq++) headset.node.onFrame?.('in', frame(seq));
    await readOwn.until(() => readOwn.samples() >= 5);
    expect(readOwn.info.resolved).toMatchObject({ name: 'Headset Coexist' });
    expect(readOwn.frames.flatMap((f) => Array.from(f.data))).toEqual([1, -1, 2, -2, 3, -3, 4, -4, 5, -5]);
  }, 90_000);
});

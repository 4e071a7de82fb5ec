/**
 * `lsl-inlet` reading liblsl outlets that close and reopen, as a lab program that is stopped and
 * started again does (liblsl 1.16.2, which sends a sample of its own as the outlet closes, and
 * 1.12, which does not): every frame holds only samples the outlets pushed, each exactly once, with
 * their values and times, and the node goes on with each new outlet. Loopback only, on this test's
 * ports.
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { Frame } from '../../src/core/frame.js';
import { unixMsToLsl } from '../../src/lsl/clock.js';
import { LIBLSL_VERSIONS, liblslEnv, liblslOf, LslTool, skipWithout } from '../support/liblsl.js';
import { type LslNode, lslInletNode } from '../support/lsl-nodes.js';

const PORTS = { multicastPort: 32571, basePort: 32572, portRange: 32 };
const CHANNELS = 3;
const RATE = 500;
const COUNT = 200;
/** Closes per version: liblsl 1.16 sends its close sample after some of them only (a race of its threads). */
const ROUNDS: Record<string, number> = { '1.16': 10, '1.12': 4 };

/** Every sample of the frames: its time on the LSL clock and its values. */
function flatten(frames: readonly Frame[]): { t: number; values: number[] }[] {
  return frames.flatMap((frame) => {
    const n = frame.data.length / frame.channels.length;
    return Array.from({ length: n }, (_, i) => ({
      t: unixMsToLsl(frame.timestamp + (i * 1000) / frame.sampleRate),
      values: Array.from(frame.data.subarray(i * CHANNELS, (i + 1) * CHANNELS)),
    }));
  });
}

describe('lsl-inlet and liblsl outlets that close and reopen', () => {
  const nodes: LslNode[] = [];
  const tools: LslTool[] = [];

  afterEach(async () => {
    for (const tool of tools.splice(0)) tool.kill();
    for (const h of nodes.splice(0)) await h.node.stop();
  });

  test.for(LIBLSL_VERSIONS)(
    'lsl-inlet records a sample that was never sent: none, from liblsl %s outlets closing and reopening',
    { timeout: 240_000 },
    async (version, context) => {
      skipWithout(version, context);
      const { lib: library, tool } = await liblslOf(version);
      const rounds = ROUNDS[version] ?? 4;
      const name = `Closing Gaze ${version}`;
      const outlets = new LslTool(
        tool,
        [library, 'rounds', name, 'Gaze', String(CHANNELS), String(RATE), String(COUNT), String(rounds)],
        liblslEnv(PORTS),
        true,
      );
      tools.push(outlets);
      await outlets.waitFor('READY 0');
      const reader = lslInletNode(PORTS, { name });
      nodes.push(reader);
      await reader.node.start();
      for (let round = 0; round < rounds; round++) {
        await reader.until(() => reader.samples() >= (round + 1) * COUNT);
        // Every sample arrived: the program stops its outlet, then starts a new one.
        outlets.send('close');
        await reader.until(() => (reader.info.recoveries as number) > round);
      }
      await outlets.exited;

      const samples = flatten(reader.frames);
      expect(samples.map((s) => s.values)).toEqual(
        Array.from({ length: rounds * COUNT }, (_, k) =>
          Array.from({ length: CHANNELS }, (_, c) => k * CHANNELS + c + 0.25),
        ),
      );
      for (let round = 0; round < rounds; round++) {
        const start = Number((await outlets.waitFor(`START ${round} `)).split(' ')[2]);
        samples.slice(round * COUNT, (round + 1) * COUNT).forEach((sample, i) => {
          expect(Math.abs(sample.t - (start + i / RATE))).toBeLessThan(0.001);
        });
      }
      // At least once per outlet that closed (an answer the closing outlet gave may add a try).
      expect(reader.info.recoveries).toBeGreaterThanOrEqual(rounds);
      if (version === '1.12') expect(reader.info.closeSamplesDropped).toBe(0);
    },
  );
});

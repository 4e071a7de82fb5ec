/**
 * `lsl-inlet` reads a real liblsl outlet (lsltool's `eeg`: channel labels and units in its
 * description) with the one LSL reader the LSL device reads with: each channel in its frame unit
 * (a voltage scaled to µV, an accelerometer's `g` kept, its values unscaled), under its label as
 * the outlet wrote it; and the samples the outlet skipped counted in the frames' `lostSamples`,
 * never filled in. Loopback only, on this file's ports.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { channelUnit, type Frame } from '../../src/core/frame.js';
import { LIBLSL_VERSIONS, liblslEnv, liblslOf, LslTool, skipWithout } from '../support/liblsl.js';
import { type LslNode, lslInletNode } from '../support/lsl-nodes.js';

const PORTS = { multicastPort: 37571, basePort: 37572, portRange: 16 };
const RATE = 250;
const COUNT = 500;
/** Samples the outlet never pushes (lost upstream): lsltool leaves their stamps out too. */
const SKIP = [100, 101, 102];
const LABELS = ['Fz', 'AUX1:g', 'Cz:mV', 'T7:microvolts'];
const CHANNELS = LABELS.length;

/** Every row of the frames, each channel's value. */
function rows(frames: readonly Frame[]): number[][] {
  return frames.flatMap((frame) =>
    Array.from({ length: frame.data.length / CHANNELS }, (_, r) =>
      Array.from(frame.data.subarray(r * CHANNELS, (r + 1) * CHANNELS)),
    ),
  );
}

describe('lsl-inlet: units and losses as the outlet declares and sends them', () => {
  const nodes: LslNode[] = [];
  const tools: LslTool[] = [];

  afterEach(async () => {
    for (const tool of tools.splice(0)) tool.kill();
    for (const reader of nodes.splice(0)) await reader.node.stop();
  });

  test.for(LIBLSL_VERSIONS)(
    'liblsl %s: a channel in g stays in g, one in mV is in µV; skipped samples are lostSamples',
    { timeout: 120_000 },
    async (version, context) => {
      skipWithout(version, context);
      const { lib, tool } = await liblslOf(version);
      const name = `Inlet Units ${version}`;
      const outlet = new LslTool(
        tool,
        [
          lib,
          'eeg',
          name,
          'EEG',
          `units-${version}`,
          '1',
          String(CHANNELS),
          String(RATE),
          String(COUNT),
          '1',
          SKIP.join(','),
          LABELS.join(','),
        ],
        liblslEnv(PORTS),
        true,
      );
      tools.push(outlet);
      await outlet.waitFor('READY');
      const reader = lslInletNode(PORTS, { name });
      nodes.push(reader);
      await reader.node.start();
      const sent = Array.from({ length: COUNT }, (_, i) => i).filter((i) => !SKIP.includes(i));
      await reader.until(() => reader.samples() >= sent.length);

      // Labels as the outlet wrote them; units: µV but for the accelerometer axis, in g.
      for (const frame of reader.frames) {
        expect(frame.channels).toEqual(['Fz', 'AUX1', 'Cz', 'T7']);
        expect(frame.sampleRate).toBe(RATE);
        expect(Array.from({ length: CHANNELS }, (_, c) => channelUnit(frame, c))).toEqual([
          'µV',
          'g',
          'µV',
          'µV',
        ]);
      }
      // Values: the outlet's float32, Cz scaled from mV to µV, the others as sent.
      const scales = [1, 1, 1000, 1];
      expect(rows(reader.frames)).toEqual(
        sent.map((i) => scales.map((scale, c) => Math.fround(Math.fround(i * CHANNELS + c + 0.25) * scale))),
      );
      // The three samples never pushed: counted on the frame after them, which is discontinuous.
      const lossy = reader.frames.filter((frame) => (frame.lostSamples ?? 0) > 0);
      expect(lossy.map((frame) => [frame.lostSamples, frame.discontinuity, frame.data[0]])).toEqual([
        [SKIP.length, true, Math.fround(103 * CHANNELS + 0.25)],
      ]);
    },
  );
});

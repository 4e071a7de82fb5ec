/**
 * The example nodes run as real child processes through the external-node adapter, with a
 * recording NodeContext in place of the runtime host: frames in, processed frames out, signals,
 * stderr, in both encodings.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createExternalNode } from './process-node.js';
import type { Frame } from '../../../core/frame.js';
import type { NodeInstance } from '../../../core/node.js';
import { recordingContext } from '../../../../test/sdk/fake-node-context.js';
import { eventually } from '../../../../test/support/wait.js';

const example = (name: string): string =>
  fileURLToPath(new URL(`../../../../examples/nodes/${name}`, import.meta.url));
/** Debian's interpreter, the one a fresh Debian CI machine has. */
const PYTHON = '/usr/bin/python3';

/** Each example node in each language, with the form its payloads take on its stderr. */
const LANGUAGES = [
  {
    language: 'JavaScript',
    movingAverage: [process.execPath, example('moving-average.mjs')],
    bandPower: [process.execPath, example('band-power.mjs')],
    shows: (payload: Record<string, string>) => JSON.stringify(payload),
  },
  {
    language: 'Python',
    movingAverage: [PYTHON, example('moving_average.py')],
    bandPower: [PYTHON, example('band_power.py')],
    shows: (payload: Record<string, string>) =>
      `{${Object.entries(payload)
        .map(([k, v]) => `'${k}': '${v}'`)
        .join(', ')}}`,
  },
];

const CASES = LANGUAGES.flatMap((language) =>
  (['ndjson', 'binary'] as const).map((protocol) => ({ ...language, protocol })),
);

const running: NodeInstance[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((node) => node.stop()));
});

function frame(seq: number, rows: number[][], timestamp = 1_700_000_000_000 + seq * 40): Frame {
  const channels = ['Cz', 'Pz'];
  return { seq, timestamp, sampleRate: 250, channels, data: Float32Array.from(rows.flat()) };
}

/** The moving average, computed here independently: float64 over the float32 inputs. */
function expectedMovingAverage(inputs: Frame[], window: number): number[][] {
  const history: number[][] = [[], []];
  const out: number[][] = [];
  for (const input of inputs) {
    for (let i = 0; i < input.data.length / 2; i += 1) {
      out.push(
        [0, 1].map((c) => {
          const values = history[c]!;
          values.push(input.data[i * 2 + c]!);
          if (values.length > window) values.shift();
          return values.reduce((a, b) => a + b, 0) / values.length;
        }),
      );
    }
  }
  return out;
}

describe.each(CASES)(
  'the $language example nodes over $protocol',
  ({ movingAverage, bandPower, shows, protocol }) => {
    it('runs the moving-average node: frames, signals, stderr', async () => {
      const recorder = recordingContext({ window: 3, protocol });
      const node = createExternalNode(recorder.context, movingAverage);
      running.push(node);
      await node.start();
      expect(recorder.info.inputs).toEqual(['in']);
      expect(recorder.info.outputs).toEqual(['out']);

      const inputs = [
        frame(0, [
          [1, -1],
          [2, 0.5],
          [4, 8],
        ]),
        frame(1, [
          [10, 3],
          [-6, 2.25],
        ]),
        frame(2, [[0.125, 100]]),
      ];
      for (const input of inputs) node.onFrame?.('in', input);
      await eventually(() => recorder.emitted.length === 3, 10_000, 'three frames from the node');

      const expected = expectedMovingAverage(inputs, 3);
      const got = recorder.emitted.flatMap(({ frame: out }) =>
        Array.from({ length: out.data.length / 2 }, (_, i) => [out.data[i * 2]!, out.data[i * 2 + 1]!]),
      );
      expect(got).toHaveLength(expected.length);
      got.forEach((row, i) => {
        expect(row[0]).toBeCloseTo(expected[i]![0]!, 5);
        expect(row[1]).toBeCloseTo(expected[i]![1]!, 5);
      });
      expect(recorder.emitted.map((e) => e.port)).toEqual(['out', 'out', 'out']);
      expect(recorder.emitted.map((e) => e.frame.seq)).toEqual([0, 1, 2]);
      expect(recorder.emitted.map((e) => e.frame.timestamp)).toEqual(inputs.map((i) => i.timestamp));
      expect(recorder.emitted[0]!.frame.channels).toEqual(['Cz', 'Pz']);

      await node.signal?.('marker', { text: 'blink' });
      node.pause?.();
      node.resume?.();
      node.onFrame?.('in', frame(3, [[1, 1]]));
      await eventually(() => recorder.emitted.length === 4, 10_000, 'the frame after resume');
      // The SDK marks the first frame after a resume as a discontinuity.
      expect(recorder.emitted[3]!.frame.discontinuity).toBe(true);
      const stderr = recorder.logs.filter((l) => l.stream === 'stderr').map((l) => l.line);
      expect(stderr).toContain('moving average over 3 samples');
      expect(stderr).toContain(`signal marker ${shows({ text: 'blink' })}`);
      expect(stderr).toContain(`signal pause {}`);

      await node.stop();
      expect(recorder.failures).toEqual([]);
    });

    it('runs the band-power node: alpha power per channel', async () => {
      const recorder = recordingContext({ windowSeconds: 1, protocol });
      const node = createExternalNode(recorder.context, bandPower);
      running.push(node);
      await node.start();

      // 2 s at 250 Hz in frames of 50: channel Cz a 10 Hz sine of amplitude 2, Pz a 30 Hz sine.
      for (let f = 0; f < 10; f += 1) {
        const rows = Array.from({ length: 50 }, (_, i) => {
          const t = (f * 50 + i) / 250;
          return [2 * Math.sin(2 * Math.PI * 10 * t), Math.sin(2 * Math.PI * 30 * t)];
        });
        node.onFrame?.('in', frame(f, rows));
      }
      // The 1 s window is full after the 5th frame: one row per frame from then on.
      await eventually(() => recorder.emitted.length === 6, 10_000, 'six band-power frames');
      for (const { port, frame: out } of recorder.emitted) {
        expect(port).toBe('out');
        expect(out.channels).toEqual(['Cz', 'Pz']);
        expect(out.data.length).toBe(2);
        expect(out.data[0]).toBeCloseTo(2, 3); // A²/2 for A = 2
        expect(out.data[1]).toBeCloseTo(0, 3); // 30 Hz lies outside 8–12 Hz
        expect(out.sampleRate).toBe(5);
      }

      await node.signal?.('marker', { text: 'eyes closed' });
      await eventually(
        () =>
          recorder.logs.some(
            (l) => l.stream === 'stderr' && l.line === `signal marker ${shows({ text: 'eyes closed' })}`,
          ),
        10_000,
        'the marker on stderr',
      );
      await node.stop();
      expect(recorder.failures).toEqual([]);
    });
  },
);

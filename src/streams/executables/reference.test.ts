/**
 * The `reference` built-in against MNE on the same samples: average reference, a single channel,
 * linked mastoids (the mean of a set), with pick and drop, frame by frame (≤ 1e-6 relative, float32
 * input); and a configured name the frames lack puts the node in error naming it.
 */
import { describe, expect, it } from 'vitest';
import type { Frame } from '../../core/frame.js';
import { FatalNodeError } from '../runtime/node-errors.js';
import { recordingContext } from '../../../test/sdk/fake-node-context.js';
import { mneReference, relativeError } from '../../../test/support/mne-erp.js';
import { createReference } from './reference.js';

const CHANNELS = ['Fz', 'Cz', 'Pz', 'O1', 'A1', 'A2'];
const RATE = 250;
const ROWS = [7, 1, 25, 13]; // frames of uneven sizes

/** Float32 samples from a seeded generator: EEG-like values of tens of µV with offsets per channel. */
function frames(): Frame[] {
  let state = 12345;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648 - 0.5;
  };
  let seq = 0;
  let t = 1_700_000_000_000;
  return ROWS.map((rows) => {
    const data = new Float32Array(rows * CHANNELS.length);
    for (let i = 0; i < data.length; i++) data[i] = 80 * next() + 30 * ((i % CHANNELS.length) - 2);
    const frame: Frame = { seq: seq++, timestamp: t, sampleRate: RATE, channels: CHANNELS, data, range: 200 };
    t += (rows * 1000) / RATE;
    return frame;
  });
}

function run(config: Record<string, unknown>, input: Frame[]): Frame[] {
  const rc = recordingContext(config);
  const node = createReference(rc.context);
  for (const frame of input) node.onFrame?.('in', frame);
  return rc.emitted.map((e) => e.frame);
}

const CASES: { name: string; config: Record<string, unknown>; mne: Record<string, unknown> }[] = [
  { name: 'average reference', config: { reference: 'average' }, mne: { reference: 'average' } },
  { name: 'one channel, names in another case', config: { reference: ['cz'] }, mne: { reference: ['Cz'] } },
  {
    name: 'linked mastoids, mastoids dropped',
    config: { reference: ['a1', 'A2'], drop: ['A1', 'a2'] },
    mne: { reference: ['A1', 'A2'], drop: ['A1', 'A2'] },
  },
  {
    name: 'average reference then pick, in the pick order',
    config: { reference: 'average', pick: ['pz', 'FZ', 'o1'] },
    mne: { reference: 'average', pick: ['Pz', 'Fz', 'O1'] },
  },
  { name: 'pick alone', config: { pick: ['O1', 'Cz'] }, mne: { pick: ['O1', 'Cz'] } },
];

describe('reference equals MNE set_eeg_reference / pick / drop_channels, frame by frame', () => {
  const input = frames();
  const all = input.flatMap((f) => Array.from(f.data));
  for (const { name, config, mne } of CASES) {
    it(name, async () => {
      const output = run(config, input);
      const expected = await mneReference({ channels: CHANNELS, rate: RATE, data: all, ...mne });
      expect(output.map((f) => f.seq)).toEqual(input.map((f) => f.seq));
      let row = 0;
      for (const [k, frame] of output.entries()) {
        expect(frame.channels).toEqual(expected.channels);
        expect(frame.timestamp).toBe(input[k]?.timestamp);
        const width = expected.channels.length;
        const rows = ROWS[k] as number;
        const reference = expected.data.slice(row * width, (row + rows) * width);
        expect(relativeError(frame.data, reference)).toBeLessThanOrEqual(1e-6);
        row += rows;
      }
    });
  }
});

describe('reference: channels and frame fields', () => {
  it('keeps a single reference channel, all zeros, as MNE does', () => {
    const [first] = run({ reference: ['Cz'] }, frames());
    const cz = CHANNELS.indexOf('Cz');
    for (let i = cz; i < (first?.data.length ?? 0); i += CHANNELS.length) expect(first?.data[i]).toBe(0);
  });

  it('doubles the range when it subtracts, and keeps it when it only picks', () => {
    expect(run({ reference: 'average' }, frames())[0]?.range).toBe(400);
    expect(run({ pick: ['Cz'] }, frames())[0]?.range).toBe(200);
  });

  it('goes to error naming a reference channel the frames do not have', () => {
    const rc = recordingContext({ reference: ['TP9', 'TP10'] });
    const node = createReference(rc.context);
    const [frame] = frames();
    expect(() => node.onFrame?.('in', frame as Frame)).toThrow(FatalNodeError);
    expect(() => node.onFrame?.('in', frame as Frame)).toThrow(
      "config/reference/0: 'TP9' is not a channel of the input; its channels are Fz, Cz, Pz, O1, A1, A2 (any case)",
    );
    expect(rc.emitted).toEqual([]);
  });

  it('names a picked channel the frames do not have', () => {
    const node = createReference(recordingContext({ pick: ['Cz', 'Oz'] }).context);
    expect(() => node.onFrame?.('in', frames()[0] as Frame)).toThrow("config/pick/1: 'Oz' is not a channel");
  });
});

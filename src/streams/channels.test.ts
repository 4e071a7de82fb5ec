/**
 * A reference node naming a channel its input will not have is refused when the stream is made,
 * pointing at the name, whenever the channels are known before the stream runs (an eeg-source's
 * `channels`, a signal-generator's names), through processors that keep or pick channels.
 */
import { describe, expect, it } from 'vitest';
import type { NodeInput, PipeInput } from '../platform/schemas/stream.js';
import { type GraphContext, graphIssues } from './graph-document.js';

const CONTEXT: GraphContext = { executablesDirs: [] };
const eeg = (channels?: string[]): NodeInput => ({
  id: 'eeg',
  executable: 'eeg-source',
  config: channels === undefined ? {} : { channels },
});
const pipe = (id: string, source: string, destination: string): PipeInput => ({ id, source, destination });
const chain = (...nodes: NodeInput[]) =>
  graphIssues(
    nodes,
    nodes.slice(1).map((n, i) => pipe(`p${i}`, nodes[i]?.id ?? '', n.id)),
    CONTEXT,
  );

describe('channel names known before the stream runs', () => {
  it('refuses a reference channel the eeg-source does not give, naming it', () => {
    const issues = chain(eeg(['Fz', 'Cz', 'Pz', 'A1']), {
      id: 'ref',
      executable: 'reference',
      config: { reference: ['a1', 'A2'] },
    });
    expect(issues).toEqual([
      {
        path: '/nodes/1/config/reference/1',
        message:
          "reference: 'A2' is not a channel of the input; its channels are Fz, Cz, Pz, A1 (any case) (the output of node 'eeg')",
        code: 'validation_failed',
      },
    ]);
  });

  it('follows the channels through a filter and a reference that picks', () => {
    const issues = chain(
      eeg(['Fz', 'Cz', 'Pz']),
      { id: 'f', executable: 'filter', config: { lowpass: 30 } },
      { id: 'pick', executable: 'reference', config: { reference: 'average', pick: ['pz', 'cz'] } },
      { id: 'again', executable: 'reference', config: { drop: ['Fz'] } },
    );
    expect(issues.map((i) => i.path)).toEqual(['/nodes/3/config/drop/0']);
  });

  it('accepts any names when the channels are the device’s to say (no channels in the config)', () => {
    expect(
      chain(eeg(), { id: 'ref', executable: 'reference', config: { reference: ['TP9', 'TP10'] } }),
    ).toEqual([]);
  });

  it('knows a signal-generator’s default names', () => {
    const gen: NodeInput = {
      id: 'gen',
      executable: 'signal-generator',
      config: { sampleRate: 250, amplitudes: [1], frequencies: [10], channels: 2 },
    };
    expect(chain(gen, { id: 'ref', executable: 'reference', config: { reference: ['CH2'] } })).toEqual([]);
    expect(chain(gen, { id: 'ref', executable: 'reference', config: { pick: ['ch3'] } })[0]?.path).toBe(
      '/nodes/1/config/pick/0',
    );
  });

  it('refuses pick with drop, and a reference node that does nothing', () => {
    expect(chain(eeg(), { id: 'ref', executable: 'reference', config: {} })[0]?.message).toContain(
      'at least one of reference, pick or drop',
    );
    expect(
      chain(eeg(), { id: 'ref', executable: 'reference', config: { pick: ['Cz'], drop: ['Fz'] } })[0]?.path,
    ).toBe('/nodes/1/config/drop');
  });

  it('refuses an epoch whose baseline lies outside it', () => {
    const issues = chain(eeg(), {
      id: 'ep',
      executable: 'epoch',
      config: { tmin: -0.2, tmax: 0.5, baseline: [-0.3, 0] },
    });
    expect(issues.map((i) => i.path)).toEqual(['/nodes/1/config/baseline/0']);
  });
});

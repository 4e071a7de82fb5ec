import { describe, expect, test } from 'vitest';
import type { BuiltinDescriptor } from './executables/builtin-descriptor.js';
import { builtinByName } from './executables/builtins.js';
import { needsIssues } from './input-needs.js';
import type { RatedNode } from './rates.js';

/** A node that takes EEG in µV at 500 Hz or more (as a band power does). */
const needy: BuiltinDescriptor = {
  ...(builtinByName('logger') as BuiltinDescriptor),
  name: 'needy',
  needs: { units: 'µV', minRate: 500 },
};
/** A source of derived quantities, its units fixed. */
const derived: BuiltinDescriptor = {
  ...(builtinByName('signal-generator') as BuiltinDescriptor),
  name: 'derived',
  outputUnits: () => ['µV²', 'dB'],
};

function graph(
  list: [string, BuiltinDescriptor | undefined, Record<string, unknown>][],
): Map<string, RatedNode> {
  return new Map(
    list.map(([id, builtin, config], index) => [
      id,
      { node: { id, executable: builtin?.name ?? 'x', config }, index, builtin },
    ]),
  );
}

describe('what a node needs of its input, checked before the stream runs', () => {
  const gen = { sampleRate: 1000, amplitudes: [1], frequencies: [1] };
  const filter = builtinByName('filter');

  test('a pipe that brings other units than µV is refused at that pipe, through a filter too', () => {
    const nodes = graph([
      ['d', derived, gen],
      ['f', filter, { lowpass: 40 }],
      ['n', needy, {}],
    ]);
    expect(
      needsIssues(
        nodes,
        [
          ['d', 'f'],
          ['f', 'n'],
        ],
        [0, 1],
      ),
    ).toEqual([
      {
        path: '/pipes/1',
        message:
          "needy node 'n' takes EEG in µV, but node 'd' outputs µV², dB through this pipe; connect it to a source of EEG (an eeg-source, or a filter of one)",
        code: 'validation_failed',
      },
    ]);
  });

  test('a known rate below the lowest one the node takes is refused; µV EEG at a rate it takes passes', () => {
    const slow = graph([
      ['g', builtinByName('signal-generator'), { ...gen, sampleRate: 250 }],
      ['f', filter, { lowpass: 40 }],
      ['n', needy, {}],
    ]);
    expect(
      needsIssues(
        slow,
        [
          ['g', 'f'],
          ['f', 'n'],
        ],
        [3, 4],
      ).map((i) => [i.path, i.message]),
    ).toEqual([
      ['/pipes/4', "needy node 'n' needs at least 500 Hz, but node 'g' gives 250 Hz through this pipe"],
    ]);
    const fine = graph([
      ['g', builtinByName('signal-generator'), gen],
      ['n', needy, {}],
    ]);
    expect(needsIssues(fine, [['g', 'n']], [0])).toEqual([]);
  });

  test('what only the running node knows (an eeg-source on the device, an ingest) is not refused', () => {
    const nodes = graph([
      ['e', builtinByName('eeg-source'), {}],
      ['i', builtinByName('ingest'), {}],
      ['n', needy, {}],
    ]);
    expect(
      needsIssues(
        nodes,
        [
          ['e', 'n'],
          ['i', 'n'],
        ],
        [0, 1],
      ),
    ).toEqual([]);
  });
});

describe('the computing built-ins declare what they need and give', () => {
  const gen = {
    sampleRate: 250,
    amplitudes: [1],
    frequencies: [10],
    channels: 2,
    channelNames: ['O1', 'O2'],
  };
  const nodes = (second: string, third: string) =>
    graph([
      ['g', builtinByName('signal-generator'), gen],
      ['b', builtinByName(second), {}],
      ['x', builtinByName(third), {}],
    ]);
  const edges: [string, string][] = [
    ['g', 'b'],
    ['b', 'x'],
  ];

  test.each([
    ['band-power', 'band-power', 'µV²'],
    ['band-power', 'ssvep', 'µV²'],
    ['ssvep', 'band-power', '1, Hz'],
    ['ssvep_algo', 'ssvep_algo', '1, Hz'],
  ])('%s then %s: refused at the second pipe, naming what comes', (second, third, units) => {
    const issues = needsIssues(nodes(second, third), edges, [0, 1]);
    expect(issues).toHaveLength(1);
    expect(issues[0]?.path).toBe('/pipes/1');
    expect(issues[0]?.message).toContain(`node 'b' outputs ${units}`);
  });

  test.each(['filter', 'bandpass_filter', 'reference', 'resample', 'epoch'])(
    'EEG through %s still feeds band-power',
    (processor) => {
      const config: Record<string, Record<string, unknown>> = {
        filter: { highpass: 1 },
        bandpass_filter: { cutoff: 10, bandwidth: 4 },
        reference: { reference: 'average' },
        resample: { sampleRate: 125 },
        epoch: { tmin: 0, tmax: 1 },
      };
      const graphOf = graph([
        ['g', builtinByName('signal-generator'), gen],
        ['p', builtinByName(processor), config[processor] ?? {}],
        ['x', builtinByName('band-power'), {}],
      ]);
      expect(
        needsIssues(
          graphOf,
          [
            ['g', 'p'],
            ['p', 'x'],
          ],
          [0, 1],
        ),
      ).toEqual([]);
    },
  );
});

import { describe, expect, test } from 'vitest';
import { lslColumns } from '../../lsl/columns.js';
import type { ChannelDescription } from '../../lsl/info.js';
import type { ResolvedStream } from '../../lsl/resolver.js';
import { describeUnplayed, type LslChannel, mapLslChannels as mapColumns } from './channels.js';

/** The device's channels of the reader's columns of `s`. */
function mapLslChannels(
  s: ResolvedStream,
  map: readonly (string | undefined)[] | undefined,
  argument: string,
): (LslChannel & { scale: number })[] {
  const columns = lslColumns(s);
  return mapColumns(s, columns, map, argument).map((channel, c) => ({
    ...channel,
    scale: columns[c]?.scale ?? Number.NaN,
  }));
}

function stream(channels: ChannelDescription[], count = channels.length): ResolvedStream {
  return {
    name: 'amp',
    type: 'EEG',
    channelCount: count,
    channelFormat: 'float32',
    sourceId: 'amp-1',
    nominalSrate: 250,
    version: 110,
    createdAt: 1,
    uid: 'u',
    sessionId: 'default',
    hostname: 'lab',
    v4address: '127.0.0.1',
    v4dataPort: 1,
    v4servicePort: 1,
    v6address: '',
    v6dataPort: 0,
    v6servicePort: 0,
    descXml: '',
    channels,
  };
}

describe("an LSL stream's channels, each under its own name", () => {
  test('labels are cleaned of prefixes and reference suffixes, never renamed; the others are reported', () => {
    const channels = mapLslChannels(
      stream([
        { label: 'Fp1', unit: 'microvolts' },
        { label: 'EEG T7', unit: 'uV' },
        { label: 'p8-ref', unit: 'mV' },
        { label: 'AUX1', unit: 'g', type: 'ACC' },
        { label: 'TP9', unit: 'V' },
        { label: 'tp9' },
        { label: 'Right AUX' },
        { label: '' },
        { label: 'EOG', type: 'EOG' },
      ]),
      undefined,
      'type=EEG',
    );
    expect(channels.map((c) => [c.label, c.name, c.type, c.scale, c.unit])).toEqual([
      ['Fp1', 'Fp1', 'EEG', 1, undefined],
      ['EEG T7', 'T7', 'EEG', 1, undefined],
      ['p8-ref', 'p8', 'EEG', 1000, undefined],
      // Not a voltage: played as it is, in its own unit.
      ['AUX1', 'AUX1', 'ACC', 1, 'g'],
      ['TP9', 'TP9', 'EEG', 1e6, undefined],
      ['tp9', undefined, 'EEG', 1, undefined],
      ['Right AUX', 'Right AUX', 'AUX', 1, undefined],
      ['ch8', 'ch8', 'EXG', 1, undefined],
      ['EOG', 'EOG', 'EXG', 1, undefined],
    ]);
    expect(describeUnplayed(channels)).toEqual([
      'tp9 (is named tp9 like channel 5; only the first is played (give each a name of its own with channels=))',
    ]);
  });

  test('channels in other units are played in their own units, unscaled', () => {
    const channels = mapLslChannels(
      stream([
        { label: 'X', unit: 'g', type: 'ACC' },
        { label: 'Y', unit: 'counts' },
        { label: 'Z', unit: 'm/s^2', type: 'Accelerometer' },
      ]),
      undefined,
      'x',
    );
    expect(channels.map((c) => [c.name, c.unit, c.scale, c.type])).toEqual([
      ['X', 'g', 1, 'ACC'],
      ['Y', 'counts', 1, 'EXG'],
      ['Z', 'm/s^2', 1, 'ACC'],
    ]);
  });

  test('a stream with no channel played at all is refused, saying why each is not played', () => {
    expect(() => mapLslChannels(stream([], 2), [undefined, undefined], 'x')).toThrow(
      /has no channel the device can play \(ch1 \(is - in channels=\); ch2 \(is - in channels=\)\)/,
    );
  });

  test('no labels: ch1…chN, played', () => {
    expect(mapLslChannels(stream([], 3), undefined, 'name=obci_eeg1').map((c) => c.name)).toEqual([
      'ch1',
      'ch2',
      'ch3',
    ]);
  });

  test('a 64-channel 10-10 cap plays all 64 under their names, each placed on the head', () => {
    const names = ['Fp1', 'AFz', 'FCz', 'CPz', 'POz', 'Oz', 'FT9', 'TP10', 'Iz', 'F1'];
    const channels = mapLslChannels(stream(names.map((label) => ({ label }))), undefined, 'type=EEG');
    expect(channels.map((c) => c.name)).toEqual(names);
    expect(channels.every((c) => c.type === 'EEG')).toBe(true);
  });

  test('a map renames the channels, one entry per channel; - leaves one unplayed', () => {
    const channels = mapLslChannels(stream([], 4), ['Fp1', undefined, 'EOG left', 'o2'], 'x');
    expect(channels.map((c) => [c.label, c.name])).toEqual([
      ['ch1', 'Fp1'],
      ['ch2', undefined],
      ['ch3', 'EOG left'],
      ['ch4', 'o2'],
    ]);
    expect(() => mapLslChannels(stream([], 4), ['Fp1'], 'x')).toThrow(
      /channels= names 1 channel\(s\) but LSL stream 'amp' has 4/,
    );
    expect(() => mapLslChannels(stream([], 2), ['Fp1', 'a\u0001'], 'x')).toThrow(
      /channels= entry 2 "a\\u0001" holds a control character/,
    );
    expect(() => mapLslChannels(stream([], 2), ['Fp1', 'FP1'], 'x')).toThrow(/channels= names FP1 twice/);
  });
});

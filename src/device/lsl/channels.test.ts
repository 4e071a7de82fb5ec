import { describe, expect, test } from 'vitest';
import type { ChannelDescription } from '../../lsl/info.js';
import type { ResolvedStream } from '../../lsl/resolver.js';
import { describeUnplayed, lslMicrovoltsPerUnit, mapLslChannels } from './channels.js';

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

describe('LSL channels to electrodes', () => {
  test('labels map as replay maps file labels (10-10 names, prefixes, case); the others are reported', () => {
    const channels = mapLslChannels(
      stream([
        { label: 'Fp1', unit: 'microvolts' },
        { label: 'EEG T7', unit: 'uV' },
        { label: 'p8-ref', unit: 'mV' },
        { label: 'AUX1', unit: 'g' },
        { label: 'Cz', unit: 'V' },
        { label: 'CZ' },
        { label: 'CMS' },
        { label: '' },
      ]),
      undefined,
      'type=EEG',
    );
    expect(channels.map((c) => [c.label, c.electrode, c.toMicrovolts])).toEqual([
      ['Fp1', 'FP1', 1],
      ['EEG T7', 'T3', 1],
      ['p8-ref', 'T6', 1000],
      ['AUX1', undefined, 1],
      ['Cz', 'CZ', 1e6],
      ['CZ', undefined, 1],
      ['CMS', undefined, 1],
      ['ch8', undefined, 1],
    ]);
    expect(describeUnplayed(channels)).toEqual([
      "AUX1 (names none of the headset's 19 EEG electrodes)",
      'CZ (names CZ like channel 5 before it; only the first is played)',
      'CMS (names CMS, which has no EEG channel on the headset)',
      'ch8 (has no label)',
    ]);
  });

  test('units: the words and symbols of volts; none is µV; others are not voltages', () => {
    expect(lslMicrovoltsPerUnit('')).toBe(1);
    expect(lslMicrovoltsPerUnit('Volts')).toBe(1e6);
    expect(lslMicrovoltsPerUnit('millivolts')).toBe(1e3);
    expect(lslMicrovoltsPerUnit('µV')).toBe(1);
    expect(lslMicrovoltsPerUnit('nV')).toBe(1e-3);
    expect(lslMicrovoltsPerUnit('counts')).toBeUndefined();
  });

  test('a played channel in a unit that is not a voltage is refused', () => {
    expect(() => mapLslChannels(stream([{ label: 'O1', unit: 'counts' }]), undefined, 'type=EEG')).toThrow(
      /channel 1 "O1" \(O1\) is in "counts", not a voltage unit/,
    );
  });

  test('no labels: refused, saying how to map the channels', () => {
    expect(() => mapLslChannels(stream([], 4), undefined, 'name=obci_eeg1')).toThrow(
      /LSL stream 'amp' has no channel labels .* lsl:<query>\?channels=Fp1,Fp2,…, with - for a channel not played/,
    );
  });

  test('labels naming no electrode: refused, naming them', () => {
    expect(() =>
      mapLslChannels(stream([{ label: 'EXG Channel 0' }, { label: 'EXG Channel 1' }]), undefined, 'x'),
    ).toThrow(/none of its labels \("EXG Channel 0", "EXG Channel 1"\) names one of the EEG electrodes/);
  });

  test('a map replaces the labels, one entry per channel', () => {
    const channels = mapLslChannels(stream([], 4), ['Fp1', undefined, 'P7', 'o2'], 'x');
    expect(channels.map((c) => [c.label, c.electrode])).toEqual([
      ['ch1', 'FP1'],
      ['ch2', undefined],
      ['ch3', 'T5'],
      ['ch4', 'O2'],
    ]);
    expect(() => mapLslChannels(stream([], 4), ['Fp1'], 'x')).toThrow(
      /channels= names 1 channel\(s\) but LSL stream 'amp' has 4/,
    );
    expect(() => mapLslChannels(stream([], 2), ['Fp1', 'Fpz'], 'x')).toThrow(
      /channels= entry 2 "Fpz" is not one of the EEG electrodes/,
    );
    expect(() => mapLslChannels(stream([], 2), ['Fp1', 'FP1'], 'x')).toThrow(/channels= names FP1 twice/);
  });
});

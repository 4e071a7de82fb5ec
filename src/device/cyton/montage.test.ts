import { describe, expect, test } from 'vitest';
import { DeviceArgumentError } from '../errors.js';
import { liveChannelElectrode } from '../live/driver.js';
import { cytonChannels, parseCytonArgument } from './montage.js';

describe('the Cyton device argument', () => {
  test('a bare path keeps the default montage and gain', () => {
    expect(parseCytonArgument('cyton:/dev/ttyUSB0')).toEqual({
      path: '/dev/ttyUSB0',
      channels: undefined,
      gain: undefined,
    });
    expect(parseCytonArgument('COM3').path).toBe('COM3');
  });

  test('channels= and gain= are read; names are played as given; - leaves a channel unplayed', () => {
    const a = parseCytonArgument('cyton:/dev/ttyUSB0?channels=Fp1,fp2,-,Cz,EOG%20left,TP9&gain=8');
    expect(a).toEqual({
      path: '/dev/ttyUSB0',
      channels: ['Fp1', 'fp2', '-', 'Cz', 'EOG left', 'TP9'],
      gain: 8,
    });
    expect(cytonChannels(8, a.channels).map((c) => [c.label, c.name, c.type])).toEqual([
      ['EXG Channel 1', 'Fp1', 'EEG'],
      ['EXG Channel 2', 'fp2', 'EEG'],
      ['EXG Channel 3', undefined, 'EXG'],
      ['EXG Channel 4', 'Cz', 'EEG'],
      ['EXG Channel 5', 'EOG left', 'EXG'],
      ['EXG Channel 6', 'TP9', 'EEG'],
      ['EXG Channel 7', undefined, 'EXG'],
      ['EXG Channel 8', undefined, 'EXG'],
    ]);
    expect(cytonChannels(8, a.channels).map((c) => c.reason)[2]).toMatch(/is - in channels=/);
    expect(cytonChannels(8, a.channels).map((c) => c.reason)[7]).toMatch(/past the end of channels=/);
  });

  test.each([
    ['cyton:', /serial port/, 'device'],
    [
      'cyton:/dev/ttyUSB0?channels=Fp1,%01',
      /"\\u0001" \(channel 2\) holds a control character/,
      'device/channels/1',
    ],
    ['cyton:/dev/ttyUSB0?channels=Fp1,,O1', /"" \(channel 2\) is empty/, 'device/channels/1'],
    ['cyton:/dev/ttyUSB0?channels=C3,c3', /c3 is named for channel 1 and channel 2/, 'device/channels/1'],
    ['cyton:/dev/ttyUSB0?gain=3', /gain=3 is not a gain/, 'device/gain'],
    ['cyton:/dev/ttyUSB0?rate=500', /Unknown option "rate"/, 'device/rate'],
  ])('%s is refused with a message naming the fault', (argument, message, field) => {
    let error: unknown;
    try {
      parseCytonArgument(argument);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DeviceArgumentError);
    expect((error as DeviceArgumentError).message).toMatch(message);
    expect((error as DeviceArgumentError).field).toBe(field);
  });

  test('the default montages keep their 10-10 names; those that are headset electrodes key impedance', () => {
    expect(cytonChannels(8, undefined).map((c) => c.name)).toEqual([
      'Fp1',
      'Fp2',
      'C3',
      'C4',
      'P7',
      'P8',
      'O1',
      'O2',
    ]);
    expect(cytonChannels(8, undefined).map(liveChannelElectrode)).toEqual([
      'FP1',
      'FP2',
      'C3',
      'C4',
      'T5',
      'T6',
      'O1',
      'O2',
    ]);
    expect(
      cytonChannels(16, undefined)
        .slice(8)
        .map((c) => c.name),
    ).toEqual(['F7', 'F8', 'F3', 'F4', 'T7', 'T8', 'P3', 'P4']);
  });

  test('a map longer than the board is refused when the board turns out to have 8 channels', () => {
    const names = parseCytonArgument('x?channels=Fp1,Fp2,C3,C4,P7,P8,O1,O2,F7').channels;
    expect(() => cytonChannels(8, names)).toThrow(/names 9 channels, but the board has 8 \(no Daisy/);
  });
});

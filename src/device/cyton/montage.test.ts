import { describe, expect, test } from 'vitest';
import { DeviceArgumentError } from '../errors.js';
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

  test('channels= and gain= are read; - leaves a channel unplayed', () => {
    const a = parseCytonArgument('cyton:/dev/ttyUSB0?channels=Fp1,fp2,-,Cz&gain=8');
    expect(a).toEqual({ path: '/dev/ttyUSB0', channels: ['Fp1', 'fp2', '-', 'Cz'], gain: 8 });
    expect(cytonChannels(8, a.channels).map((c) => [c.label, c.electrode])).toEqual([
      ['Fp1', 'FP1'],
      ['fp2', 'FP2'],
      ['EXG Channel 3', undefined],
      ['Cz', 'CZ'],
      ['EXG Channel 5', undefined],
      ['EXG Channel 6', undefined],
      ['EXG Channel 7', undefined],
      ['EXG Channel 8', undefined],
    ]);
  });

  test.each([
    ['cyton:', /serial port/, 'device'],
    [
      'cyton:/dev/ttyUSB0?channels=Fp1,Xy9',
      /"Xy9" \(channel 2\) is not an EEG electrode/,
      'device/channels/1',
    ],
    ['cyton:/dev/ttyUSB0?channels=Fp1,CMS', /"CMS"/, 'device/channels/1'],
    ['cyton:/dev/ttyUSB0?channels=T7,T3', /T3 is named for channel 1 and channel 2/, 'device/channels/1'],
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

  test('the default montages map to the headset’s electrodes through the 10-10 names', () => {
    expect(cytonChannels(8, undefined).map((c) => c.electrode)).toEqual([
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
        .map((c) => c.electrode),
    ).toEqual(['F7', 'F8', 'F3', 'F4', 'T3', 'T4', 'P3', 'P4']);
  });

  test('a map longer than the board is refused when the board turns out to have 8 channels', () => {
    const names = parseCytonArgument('x?channels=Fp1,Fp2,C3,C4,P7,P8,O1,O2,F7').channels;
    expect(() => cytonChannels(8, names)).toThrow(/names 9 channels, but the board has 8 \(no Daisy/);
  });
});

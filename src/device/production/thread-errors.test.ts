/**
 * A live driver's errors cross the device's thread boundary as the same catalogue errors: code,
 * message, details and the fields of the device's error classes survive the structured clone, so
 * the API answers as when the driver ran on the main thread.
 */
import { describe, expect, it } from 'vitest';
import { HeadsetdError } from '../../core/errors.js';
import { DeviceArgumentError, DeviceBusyError, DeviceUnavailableError } from '../errors.js';
import { errorFromWire, errorToWire } from './thread-errors.js';

const across = (error: unknown): Error => errorFromWire(structuredClone(errorToWire(error)));

describe('errors across the device thread', () => {
  it('a refused argument stays validation_failed with its field, value and allowed values', () => {
    const error = across(
      new DeviceArgumentError('gain must be one of 1, 2', { field: 'gain', value: 3, allowed: [1, 2] }),
    );
    expect(error).toBeInstanceOf(DeviceArgumentError);
    expect(error).toMatchObject({ code: 'validation_failed', field: 'gain', value: 3, allowed: [1, 2] });
    if (!(error instanceof DeviceArgumentError)) throw new Error('not a DeviceArgumentError');
    expect(error.toBody()).toEqual(
      new DeviceArgumentError('gain must be one of 1, 2', {
        field: 'gain',
        value: 3,
        allowed: [1, 2],
      }).toBody(),
    );
  });

  it('an unavailable device keeps its reason; a busy one what holds it', () => {
    expect(across(new DeviceUnavailableError('disconnected', 'gone'))).toMatchObject({
      code: 'device_unavailable',
      reason: 'disconnected',
      message: 'gone',
    });
    const heldBy = { activity: 'impedance_measurement', holder: 'guide' } as const;
    const busy = across(new DeviceBusyError('busy', heldBy));
    if (!(busy instanceof DeviceBusyError)) throw new Error('not a DeviceBusyError');
    expect(busy.heldBy).toEqual(heldBy);
  });

  it('any other catalogue error keeps its code and details; a plain error its message', () => {
    expect(across(new HeadsetdError('operation_cancelled', 'stopped', { at: 2 }))).toMatchObject({
      code: 'operation_cancelled',
      message: 'stopped',
      details: { at: 2 },
    });
    const plain = across(new TypeError('bad'));
    expect(plain).not.toBeInstanceOf(HeadsetdError);
    expect(plain).toMatchObject({ name: 'TypeError', message: 'bad' });
  });
});

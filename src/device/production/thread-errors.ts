/**
 * Errors across the device's thread boundary: what a live driver throws in the thread reaches the
 * main thread as the same catalogue error (its code, message and details, and the fields of the
 * device's error classes), so that the API answers a request exactly as it did when the driver ran
 * on the main thread. Structured cloning alone would keep the message and lose the rest.
 */
import { HeadsetdError, isHeadsetdError } from '../../core/errors.js';
import {
  DeviceArgumentError,
  DeviceBusyError,
  type DeviceHolder,
  DeviceUnavailableError,
  type UnavailableReason,
} from '../errors.js';
import type { WireError } from './thread-protocol.js';

export function errorToWire(error: unknown): WireError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  if (!isHeadsetdError(error)) return { name: error.name, message: error.message };
  return {
    name: error.name,
    message: error.message,
    code: error.code,
    ...(error.details === undefined ? {} : { details: error.details }),
    ...(error instanceof DeviceUnavailableError ? { reason: error.reason } : {}),
  };
}

export function errorFromWire(wire: WireError): Error {
  const { code, details, message } = wire;
  if (code === undefined) {
    const error = new Error(message);
    error.name = wire.name;
    return error;
  }
  if (code === 'device_unavailable' && wire.reason !== undefined)
    return new DeviceUnavailableError(wire.reason as UnavailableReason, message);
  if (code === 'device_busy' && details?.heldBy !== undefined)
    return new DeviceBusyError(message, details.heldBy as DeviceHolder);
  if (code === 'validation_failed' && typeof details?.field === 'string') {
    const { field, value, allowed, min, max } = details as {
      field: string;
      value?: unknown;
      allowed?: readonly unknown[];
      min?: number;
      max?: number;
    };
    return new DeviceArgumentError(
      message,
      {
        field,
        ...(value === undefined ? {} : { value }),
        ...(allowed === undefined ? {} : { allowed }),
        ...(min === undefined ? {} : { min }),
        ...(max === undefined ? {} : { max }),
      },
      details,
    );
  }
  return new HeadsetdError(code, message, details);
}

/**
 * Checks of a device's parts for the services that combine several of them (a seating job moves
 * motors and measures impedance): refused up front, before anything is held or started, with the
 * same not_supported answer the missing part itself gives (docs/devices.md §Capabilities).
 */
import { DeviceNotSupportedError } from './errors.js';
import type { DeviceCapability, Headset } from './headset.js';

/** The device in words, as its not_supported answers name it (`The OpenBCI Cyton (/dev/ttyUSB0)`). */
export function deviceName(device: Headset): string {
  const { model, source } = device.info();
  return source === undefined ? `The ${model}` : `The ${model} (${source})`;
}

/** Throws `DeviceNotSupportedError` for the first of `parts` the device lacks. */
export function requireParts(device: Headset, ...parts: readonly DeviceCapability[]): void {
  const capabilities = device.capabilities();
  const missing = parts.find((part) => !capabilities[part]);
  if (missing !== undefined) throw new DeviceNotSupportedError(deviceName(device), missing);
}

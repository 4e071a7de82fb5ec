/**
 * A new hostname, checked and stored: PATCH /system/hostname and the maker's SDK path PATCH
 * /system/system/hostname both call it.
 */
import { isValidHostname, type SettingsStore } from '../store/settings-store.js';
import { HeadsetdError } from '../errors/catalog.js';
import { bodyFields, refuseUnknownFields, stringField } from './http-helpers.js';

/**
 * Validates and stores a new hostname from a body of form or JSON fields (`hostname`); answers the
 * name stored (lower case). The maker's SDK path (PATCH /system/system/hostname) calls it too.
 */
export function renameDevice(settings: SettingsStore, body: unknown): string {
  const fields = bodyFields(body);
  refuseUnknownFields(fields, ['hostname']);
  const hostname = stringField(fields, 'hostname');
  if (hostname === undefined) {
    throw new HeadsetdError('invalid_request', "The field 'hostname' is required.", {
      path: '/hostname',
    });
  }
  if (!isValidHostname(hostname)) {
    throw new HeadsetdError(
      'validation_failed',
      `${JSON.stringify(hostname)} is not an RFC 1123 host name: use labels of letters, digits and inner hyphens (1..63 characters each, 253 in all), separated by dots.`,
      { path: '/hostname' },
    );
  }
  const name = hostname.toLowerCase();
  settings.setHostname(name);
  return name;
}

/**
 * A new hostname, checked and stored: PATCH /system/hostname and the maker's SDK path PATCH
 * /system/system/hostname both take {@link HostnameBody} (form or JSON) and call it.
 */
import { Type } from 'typebox';
import { isValidHostname, type SettingsStore } from '../platform/store/settings-store.js';
import { HeadsetdError } from '../core/errors.js';

/** The body of both renames: the form field or JSON member `hostname`. */
export const HostnameBody = Type.Object({ hostname: Type.String() }, { additionalProperties: false });

/** Validates and stores a new hostname; answers the name stored (lower case). */
export function renameDevice(settings: SettingsStore, hostname: string): string {
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

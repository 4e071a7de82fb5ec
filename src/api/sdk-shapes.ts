/**
 * What the maker's SDK reads on the paths it shares with the reference (docs/instinct-sdk.md): an
 * app's config entry in the SDK's snake case and whether GET /system/config asks for their list,
 * and the fields the SDK reads on the IMU. The /system routes and the SDK's own routes both answer
 * with them.
 */
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ConfigEntry as Entry } from '../platform/store/config-entries.js';
import type { Imu } from '../device/headset.js';

const NullableString = Type.Union([Type.String(), Type.Null()]);

/** An app's config entry as the SDK's model reads it. */
export const ConfigEntry = Type.Object({
  key: Type.String(),
  value: Type.Unknown(),
  id: Type.String(),
  expires_in: NullableString,
  expires_on: NullableString,
  created_at: Type.String(),
  updated_at: Type.String(),
});

/** An entry as the SDK's model reads it (snake case). */
export function entryOut(entry: Entry): Record<string, unknown> {
  return {
    key: entry.key,
    value: entry.value,
    id: entry.id,
    expires_in: entry.expiresIn,
    expires_on: entry.expiresOn,
    created_at: entry.createdAt,
    updated_at: entry.updatedAt,
  };
}

// Whether GET /system/config asks for the SDK's list of entries rather than the device
// configuration. The SDK sends Python `requests`' own headers: the bare wildcard Accept (*/*) and
// `User-Agent: python-requests/…`. Both are needed: curl, browsers and fetch send */* too, and
// they must keep the configuration the API documents there. `?entries=true` asks for the list from
// any client.
export function wantsEntryList(request: FastifyRequest): boolean {
  const query = request.query as { entries?: unknown } | undefined;
  if (query?.entries === 'true' || query?.entries === '1') return true;
  return (
    (request.headers.accept ?? '').trim() === '*/*' &&
    (request.headers['user-agent'] ?? '').startsWith('python-requests/')
  );
}

/**
 * The fields the SDK reads on the IMU (added to the reference IMU reading): always on, at its output
 * data rate.
 */
export function imuSensor(imu: Imu, type: 'imu' | 'accelerometer' = 'imu') {
  return { type, enabled: true, sample_rate: imu.rate(), range: null } as const;
}

/**
 * What the guide routes share, and their small helpers: electrode lists in the guides' forms
 * (`"all"`, arrays, comma lists; any case) and the current configuration.
 */
import { acquisitionBusy } from '../device/busy.js';
import { ELECTRODES, type Electrode, MIXED_CASE, parseElectrode } from '../core/electrodes.js';
import { requireParts } from '../device/capabilities.js';
import type { DeviceCapability, Headset } from '../device/headset.js';
import type { ImpedanceStore } from '../platform/store/impedance-store.js';
import type { JobRegistry } from '../platform/jobs/jobs.js';
import type { SettingsStore } from '../platform/store/settings-store.js';
import { HeadsetdError } from '../core/errors.js';
import { type DeviceConfig, DEFAULT_DEVICE_CONFIG, effectiveConfig } from '../device/settings/config.js';
import type { EventHub } from '../events/hub.js';
import type { ImpedanceSessions } from './impedance-sessions.js';
import type { LatestImpedance } from './latest-impedance.js';
import type { MotorLocks } from './motor-locks.js';

export interface GuidesContext {
  readonly device: Headset;
  readonly hub: EventHub;
  readonly store: ImpedanceStore;
  readonly settings: SettingsStore;
  readonly latest: LatestImpedance;
  readonly sessions: ImpedanceSessions;
  readonly locks: MotorLocks;
  /** The device's jobs: closed-loop electrode operations run there (electrode-jobs.ts). */
  readonly jobs: JobRegistry;
  /** The device configuration now (thresholds, LED visualization defaults). */
  config(): DeviceConfig;
  onClose(cleanup: () => void): void;
}

/** The configuration, or the defaults when the stored one no longer validates. */
export function currentConfig(settings: SettingsStore): DeviceConfig {
  try {
    const overrides = settings.configOverrides();
    // Nothing stored (every first start): the defaults, which need no check (a test checks them);
    // the check compiles the configuration's validator, 6 ms of a start (docs/performance.md).
    if (Object.keys(overrides).length === 0) return DEFAULT_DEVICE_CONFIG;
    return effectiveConfig(overrides);
  } catch {
    return DEFAULT_DEVICE_CONFIG;
  }
}

const VALID_NAMES = ELECTRODES.map((e) => MIXED_CASE[e]).join(', ');

/**
 * Electrodes named in a guide request: an array of names, a comma list, or `"all"`; any case.
 * `undefined` (absent) gives `fallback`. Unknown names are validation_failed naming the valid ones.
 */
export function electrodesFrom(
  value: unknown,
  path: string,
  fallback: readonly Electrode[] = ELECTRODES,
): Electrode[] {
  if (value === undefined) return [...fallback];
  const items = (Array.isArray(value) ? (value as unknown[]) : [value]).flatMap((item) =>
    typeof item === 'string' ? item.split(',') : [item],
  );
  if (items.length === 1 && typeof items[0] === 'string' && items[0].trim().toLowerCase() === 'all')
    return [...ELECTRODES];
  const electrodes: Electrode[] = [];
  for (const [i, item] of items.entries()) {
    const electrode = typeof item === 'string' ? parseElectrode(item) : undefined;
    if (electrode === undefined) {
      throw new HeadsetdError(
        'validation_failed',
        `Unknown electrode ${JSON.stringify(item)}; use "all" or names of ${VALID_NAMES}.`,
        { path: Array.isArray(value) ? `${path}/${i}` : path, allowed: ELECTRODES.map((e) => MIXED_CASE[e]) },
      );
    }
    if (!electrodes.includes(electrode)) electrodes.push(electrode);
  }
  if (electrodes.length === 0) {
    throw new HeadsetdError('validation_failed', 'Name at least one electrode.', { path });
  }
  return electrodes;
}

/** One electrode name (any case). */
export function electrodeFrom(value: unknown, path: string): Electrode {
  const electrode = typeof value === 'string' ? parseElectrode(value) : undefined;
  if (electrode === undefined) {
    throw new HeadsetdError(
      'validation_failed',
      `Unknown electrode ${JSON.stringify(value)}; use one of ${VALID_NAMES}.`,
      {
        path,
        allowed: ELECTRODES.map((e) => MIXED_CASE[e]),
      },
    );
  }
  return electrode;
}

/**
 * Refuses a request while EEG is acquired (impedance and acquisition are exclusive). A device
 * without one of `parts` the request needs is refused first (not_supported): stopping acquisition
 * would not make the request possible, so device_busy would send the client the wrong way.
 */
export function assertNotAcquiring(
  device: Headset,
  what: string,
  ...parts: readonly DeviceCapability[]
): void {
  requireParts(device, ...parts);
  const state = device.eeg.state();
  if (state.streaming) throw acquisitionBusy(state.owners, what);
}

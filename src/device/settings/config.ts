/**
 * The device configuration of GET/PATCH /system/config (docs/systems.md §Configuration): its
 * schema (the single source of validation and OpenAPI), its defaults, and how a change reaches
 * the device. Stored as the sparse overrides a client patched in; `null` in a patch removes an
 * override, so the default shows again.
 */
import { type Static, Type } from 'typebox';
import { HeadsetdError } from '../../core/errors.js';
import { EEG_ELECTRODES } from '../../core/electrodes.js';
import { type EegConfig, type Headset } from '../headset.js';
import { EEG_GAINS, EEG_SAMPLING_FREQUENCIES } from '../../core/hardware.js';
import { check, issuesToError } from '../../platform/schemas/validator.js';
import { type JsonObject, isJsonObject, mergePatch, pruneEmpty, withDefaults } from './merge-patch.js';

const Thresholds = Type.Object(
  {
    excellent: Type.Number({ exclusiveMinimum: 0, maximum: 10_000, description: 'kΩ: below it, excellent.' }),
    good: Type.Number({ exclusiveMinimum: 0, maximum: 10_000, description: 'kΩ: below it, good.' }),
    acceptable: Type.Number({
      exclusiveMinimum: 0,
      maximum: 10_000,
      description: 'kΩ: below it, acceptable.',
    }),
    poor: Type.Number({
      exclusiveMinimum: 0,
      maximum: 10_000,
      description: 'kΩ: below it, poor; above, very poor.',
    }),
  },
  { additionalProperties: false },
);

export const DeviceConfigSchema = Type.Object(
  {
    lowBatteryThreshold: Type.Number({
      minimum: 0,
      maximum: 100,
      description: 'Percent of charge under which a low_battery event is emitted.',
    }),
    eeg: Type.Object(
      {
        channels: Type.Array(Type.Enum([...EEG_ELECTRODES]), {
          minItems: 1,
          uniqueItems: true,
          description: 'EEG channels acquired by default (upper case).',
        }),
        gain: Type.Enum([...EEG_GAINS]),
        samplingFrequency: Type.Enum([...EEG_SAMPLING_FREQUENCIES], { description: 'Hz.' }),
      },
      {
        additionalProperties: false,
        description:
          'Default EEG settings: applied at start, after DELETE /system/sensors/eeg, and on change while not acquiring.',
      },
    ),
    impedance: Type.Object(
      {
        thresholds: Thresholds,
        updateInterval: Type.Integer({
          minimum: 100,
          maximum: 60_000,
          description: 'ms between measurements of a continuous impedance session that does not name one.',
        }),
      },
      { additionalProperties: false },
    ),
    ledVisualization: Type.Object(
      {
        enabled: Type.Boolean({ description: 'The STATUS LED shows the worst electrode impedance level.' }),
        colorScheme: Type.Enum(['default', 'colorblind']),
        updateInterval: Type.Integer({
          minimum: 100,
          maximum: 60_000,
          description: 'ms between LED updates.',
        }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export type DeviceConfig = Static<typeof DeviceConfigSchema>;
export type ImpedanceThresholds = DeviceConfig['impedance']['thresholds'];

export const DEFAULT_DEVICE_CONFIG: DeviceConfig = {
  lowBatteryThreshold: 15,
  eeg: { channels: [...EEG_ELECTRODES], gain: 24, samplingFrequency: 250 },
  impedance: { thresholds: { excellent: 5, good: 10, acceptable: 20, poor: 50 }, updateInterval: 1000 },
  ledVisualization: { enabled: false, colorScheme: 'default', updateInterval: 1000 },
};

/** Ascending thresholds are the one rule the schema cannot say. */
export function assertThresholdsAscending(t: ImpedanceThresholds, path: string): void {
  if (!(t.excellent < t.good && t.good < t.acceptable && t.acceptable < t.poor)) {
    throw new HeadsetdError(
      'validation_failed',
      `The impedance thresholds must ascend: excellent < good < acceptable < poor; got ${t.excellent}, ${t.good}, ${t.acceptable}, ${t.poor}.`,
      { path },
    );
  }
}

/** The effective configuration of stored overrides (defaults filled in); throws when invalid. */
export function effectiveConfig(overrides: JsonObject): DeviceConfig {
  const config = withDefaults(DEFAULT_DEVICE_CONFIG, overrides);
  const issues = check(DeviceConfigSchema, config);
  if (issues.length > 0) throw issuesToError(issues, 'The configuration');
  const valid = config as unknown as DeviceConfig;
  assertThresholdsAscending(valid.impedance.thresholds, '/impedance/thresholds');
  return valid;
}

/** Applies a merge patch to the overrides; answers the new overrides and effective configuration. */
export function patchConfig(
  overrides: JsonObject,
  patch: unknown,
): { overrides: JsonObject; config: DeviceConfig } {
  if (!isJsonObject(patch)) {
    throw new HeadsetdError(
      'invalid_request',
      'A configuration patch is a JSON object (RFC 7396 merge patch).',
      {
        path: '',
      },
    );
  }
  const next = pruneEmpty(mergePatch(overrides, patch) as JsonObject);
  return { overrides: next, config: effectiveConfig(next) };
}

/**
 * The EEG settings the user set (`eeg` keys present in the stored overrides), taken from the
 * effective configuration. Keys the user never set are left to the device's own defaults, so a
 * replayed recording keeps its file's channels and rate unless the configuration says otherwise.
 */
export function configuredEeg(overrides: JsonObject, config: DeviceConfig): Partial<DeviceConfig['eeg']> {
  const set = overrides.eeg;
  if (!isJsonObject(set)) return {};
  return Object.fromEntries(
    Object.keys(set)
      .filter((key) => key in config.eeg)
      .map((key) => [key, config.eeg[key as keyof DeviceConfig['eeg']]]),
  );
}

/**
 * Hands the configuration to the device: the low-battery threshold (where it has a battery); the EEG settings the
 * user set only while nothing acquires (a running acquisition keeps what its owner configured).
 * With `resetEeg` (the patch touched `eeg`), the device's own EEG defaults are restored first, so
 * that a key set back to null takes the device's default again.
 */
export async function applyConfig(
  device: Headset,
  config: DeviceConfig,
  overrides: JsonObject,
  resetEeg = false,
): Promise<void> {
  // Kept in the settings either way; a device without a battery has no threshold to apply it to.
  device.power?.setLowBatteryThreshold(config.lowBatteryThreshold);
  if (device.eeg.state().streaming) return;
  if (resetEeg) await device.eeg.reset();
  const eeg = configuredEeg(overrides, config);
  if (Object.keys(eeg).length > 0) await device.eeg.configure(eeg);
}

/**
 * DELETE /system/sensors/eeg: acquisition stops and the device's EEG takes the configured defaults
 * again (its own defaults, then the `eeg` keys of GET /system/config the user set). Without
 * `force`, refused (409 device_busy) while streams read the EEG. Answers the EEG configuration.
 */
export async function restoreConfiguredEeg(
  device: Headset,
  overrides: JsonObject,
  options: { force: boolean },
): Promise<EegConfig> {
  await device.eeg.reset({ force: options.force });
  const configured = configuredEeg(overrides, effectiveConfig(overrides));
  return Object.keys(configured).length > 0 ? device.eeg.configure(configured) : device.eeg.config();
}

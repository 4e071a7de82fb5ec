/**
 * The rules of the device's health (docs/systems.md §Health): each finds one problem, in a
 * sentence for a person; GET /system/healthz reads `degraded` when any does.
 */
import type { HostFigures } from './host-metrics.js';

/** What the rules read of the headset's battery (the Headset's `battery()`). */
export interface BatteryReading {
  readonly hasBattery: boolean;
  readonly isCharging: boolean;
  readonly percent: number;
}

/** Storage below this many bytes free, or below this fraction, degrades health: recordings would fail. */
export const STORAGE_MIN_FREE_BYTES = 200 * 1024 * 1024;
export const STORAGE_MIN_FREE_FRACTION = 0.05;
/** Memory available below this fraction degrades health. */
export const RAM_MIN_AVAILABLE_FRACTION = 0.05;
/** °C: CPU temperature above this degrades health (throttling begins near here on most SoCs). */
export const CPU_MAX_TEMPERATURE = 85;

/** The reasons health is degraded, one sentence each; empty when healthy. */
export function healthProblems(
  host: HostFigures,
  battery: BatteryReading,
  lowBatteryThreshold: number,
  faultedMotors: readonly string[],
): string[] {
  const problems: string[] = [];
  if (battery.hasBattery && !battery.isCharging && battery.percent < lowBatteryThreshold) {
    problems.push(
      `Battery at ${battery.percent.toFixed(0)} %, below the ${lowBatteryThreshold} % threshold.`,
    );
  }
  if (
    host.storage.free < STORAGE_MIN_FREE_BYTES ||
    host.storage.free < host.storage.total * STORAGE_MIN_FREE_FRACTION
  ) {
    problems.push(`Storage nearly full: ${(host.storage.free / 1024 / 1024).toFixed(0)} MiB free.`);
  }
  if (host.ram.available < host.ram.total * RAM_MIN_AVAILABLE_FRACTION) {
    problems.push(`Memory nearly exhausted: ${(host.ram.available / 1024 / 1024).toFixed(0)} MiB available.`);
  }
  if (host.cpu.temperature !== null && host.cpu.temperature > CPU_MAX_TEMPERATURE) {
    problems.push(`CPU at ${host.cpu.temperature} °C, above ${CPU_MAX_TEMPERATURE} °C.`);
  }
  if (faultedMotors.length > 0) problems.push(`Motor fault on ${faultedMotors.join(', ')}.`);
  return problems;
}

/**
 * The simulated headset's thermal model: first-order lags, one per body that heats.
 *
 * - The battery pack warms with the heat it dissipates: a tenth of the power drawn from it, or
 *   of the charging power put into it (its losses), through a thermal resistance of 10 °C/W to
 *   the air at 25 °C, with a 10-minute time constant. Idle (350 mW) it sits near 25.4 °C,
 *   acquiring at 250 Hz near 26.3 °C, and it climbs toward 32.5 °C while charging (7.5 W).
 * - The processor sits at 35 °C idle and warms by 0.4 °C per percent of CPU load (75 °C at full
 *   load), with a 30-second time constant. It stands in for the host's sensor where the host has
 *   none, driven by the host's real load.
 *
 * Each figure moves toward its target as `T += (target − T) · (1 − e^(−Δt/τ))`, with the target
 * of the interval just ended, so the result does not depend on how often it is read.
 */

/** °C of the air around the headset. */
export const AMBIENT_CELSIUS = 25;
/** °C per W dissipated in the pack. */
export const BATTERY_THERMAL_RESISTANCE = 10;
/** Fraction of the power through the pack that heats it (internal resistance, charger losses). */
export const BATTERY_LOSS_FRACTION = 0.1;
export const BATTERY_TIME_CONSTANT_MS = 10 * 60 * 1000;
/** °C of the processor at no load, and its rise per percent of load. */
export const PROCESSOR_IDLE_CELSIUS = 35;
export const PROCESSOR_CELSIUS_PER_PERCENT = 0.4;
export const PROCESSOR_TIME_CONSTANT_MS = 30 * 1000;

/** One body's temperature, lagging behind its target with time constant `tauMs`. */
export class FirstOrderTemperature {
  private celsius: number;
  private at: number;

  constructor(
    private readonly tauMs: number,
    start: number,
    now: number,
  ) {
    this.celsius = start;
    this.at = now;
  }

  /** Moves toward `target` (the steady temperature of the interval since the last update). */
  update(now: number, target: number): number {
    const dt = Math.max(0, now - this.at);
    this.at = now;
    this.celsius += (target - this.celsius) * (1 - Math.exp(-dt / this.tauMs));
    return this.celsius;
  }

  value(): number {
    return this.celsius;
  }
}

/** °C the pack settles at when `milliwatts` flow through it. */
export function batterySteadyCelsius(milliwatts: number): number {
  return AMBIENT_CELSIUS + (BATTERY_THERMAL_RESISTANCE * BATTERY_LOSS_FRACTION * milliwatts) / 1000;
}

/** °C the processor settles at under `loadPercent` (0..100). */
export function processorSteadyCelsius(loadPercent: number): number {
  const load = Math.min(100, Math.max(0, loadPercent));
  return PROCESSOR_IDLE_CELSIUS + PROCESSOR_CELSIUS_PER_PERCENT * load;
}

/** Rounds a temperature to 0.1 °C, as sensors report it. */
export function roundCelsius(celsius: number): number {
  return Math.round(celsius * 10) / 10;
}

/**
 * The battery: a 2000 mAh, 3.7 V Li-ion pack (7400 mWh designed, a few percent worn) drained by
 * the device's draw, which is highest while acquiring EEG and moving motors, and charged when the
 * charger is connected (through the power peripheral's AC_CONNECTED register on the bus).
 *
 * Energy is integrated at each `update()` with the draw of that moment; the device calls it at
 * least once a second and before every read. The pack's temperature follows the heat of that
 * flow (thermal.ts): it warms with the draw, more while charging. `low_battery` fires once when the charge falls
 * below the threshold and re-arms when it has climbed 2 % above it.
 */
import type { BatteryStatus, PowerSupply } from '../headset.js';
import { numberInRangeOrThrow } from '../arguments.js';
import type { Random } from './random.js';
import {
  BATTERY_TIME_CONSTANT_MS,
  batterySteadyCelsius,
  FirstOrderTemperature,
  roundCelsius,
} from './thermal.js';

export const DESIGNED_CAPACITY_MWH = 7400;
/** Draw in mW: electronics at rest, EEG front end (plus its data rate), impedance current, each moving motor. */
export const DRAW_IDLE_MW = 350;
export const DRAW_ACQUIRING_MW = 900;
export const DRAW_PER_KILOHERTZ_MW = 50;
export const DRAW_IMPEDANCE_MW = 200;
export const DRAW_PER_MOTOR_MW = 250;
/** Charging power into the pack (mW): about an hour from empty to full. */
export const CHARGE_MW = 7500;
const REARM_MARGIN = 2;

export interface PowerLoad {
  /** Sampling frequency (Hz) while acquiring, else 0. */
  readonly acquiringAt: number;
  readonly measuringImpedance: boolean;
  readonly motorsMoving: number;
}

export interface BatteryOptions {
  /** State of charge at start, 0..100 (default 80). */
  readonly initialPercent?: number;
  /** Percent under which `low_battery` is emitted (default 15). */
  readonly lowBatteryThreshold?: number;
  /** Whether the charger is connected at start (default false). */
  readonly acConnected?: boolean;
}

export interface PowerHooks {
  load(): PowerLoad;
  onLowBattery(percent: number): void;
  onChargingChanged(charging: boolean, percent: number): void;
}

export class SimulatedPower implements PowerSupply {
  private readonly maxCapacity: number;
  private energy: number;
  private cycles: number;
  private threshold: number;
  private warned = false;
  private ac: boolean;
  private charging: boolean;
  private updatedAt: number;
  /** Draw (mW) since the last update: integrating with it is exact when every load change updates. */
  private lastDraw: number;
  private readonly temperature: FirstOrderTemperature;
  private readonly serial: string;

  constructor(
    random: Random,
    now: number,
    private readonly hooks: PowerHooks,
    options: BatteryOptions = {},
  ) {
    this.maxCapacity = Math.round(DESIGNED_CAPACITY_MWH * random.uniform(0.93, 0.99));
    const percent = numberInRangeOrThrow(options.initialPercent ?? 80, 'initialPercent', 0, 100);
    this.energy = (this.maxCapacity * percent) / 100;
    this.cycles = Math.floor(random.uniform(5, 60));
    this.threshold = numberInRangeOrThrow(options.lowBatteryThreshold ?? 15, 'lowBatteryThreshold', 0, 100);
    this.ac = options.acConnected ?? false;
    this.charging = this.ac && percent < 100;
    this.updatedAt = now;
    this.lastDraw = DRAW_IDLE_MW;
    this.temperature = new FirstOrderTemperature(
      BATTERY_TIME_CONSTANT_MS,
      batterySteadyCelsius(this.packFlow(DRAW_IDLE_MW)),
      now,
    );
    this.serial = `SIMBAT-${Math.floor(random.uniform(0, 0xffffff)).toString(16).toUpperCase().padStart(6, '0')}`;
  }

  /** Present draw in mW. */
  drawMilliwatts(): number {
    const load = this.hooks.load();
    return (
      DRAW_IDLE_MW +
      (load.acquiringAt > 0 ? DRAW_ACQUIRING_MW + (DRAW_PER_KILOHERTZ_MW * load.acquiringAt) / 1000 : 0) +
      (load.measuringImpedance ? DRAW_IMPEDANCE_MW : 0) +
      DRAW_PER_MOTOR_MW * load.motorsMoving
    );
  }

  /**
   * Integrates energy since the last update with the draw of that interval, then takes the
   * present draw for the next one; fires events. Call it after every change of the load.
   */
  update(now: number): void {
    const hours = Math.max(0, now - this.updatedAt) / 3_600_000;
    this.updatedAt = now;
    const draw = this.lastDraw;
    this.lastDraw = this.drawMilliwatts();
    this.temperature.update(now, batterySteadyCelsius(this.packFlow(draw)));
    if (this.charging) {
      this.energy = Math.min(this.maxCapacity, this.energy + (CHARGE_MW - draw) * hours);
    } else if (this.ac) {
      // On a full battery with the charger connected the device runs from the charger.
    } else {
      const used = Math.min(this.energy, draw * hours);
      this.energy -= used;
      this.cycles += used / this.maxCapacity;
    }
    const percent = this.percent();
    if (this.charging && this.energy >= this.maxCapacity) this.setCharging(false);
    if (!this.warned && percent < this.threshold) {
      this.warned = true;
      this.hooks.onLowBattery(percent);
    } else if (this.warned && percent >= this.threshold + REARM_MARGIN) {
      this.warned = false;
    }
  }

  /** mW through the pack: charging power while charging, none on a full pack on the charger, else the draw. */
  private packFlow(draw: number): number {
    if (this.charging) return CHARGE_MW;
    return this.ac ? 0 : draw;
  }

  percent(): number {
    return (100 * this.energy) / this.maxCapacity;
  }

  acConnected(): boolean {
    return this.ac;
  }

  /** Plugs or unplugs the charger (the power peripheral's AC_CONNECTED register). */
  setAcConnected(connected: boolean, now: number): void {
    this.update(now);
    this.ac = connected;
    this.setCharging(connected && this.energy < this.maxCapacity);
  }

  private setCharging(charging: boolean): void {
    if (charging === this.charging) return;
    this.charging = charging;
    this.hooks.onChargingChanged(charging, this.percent());
  }

  battery(): BatteryStatus {
    const percent = this.percent();
    const draw = this.drawMilliwatts();
    return {
      hasBattery: true,
      cycleCount: Math.floor(this.cycles),
      isCharging: this.charging,
      designedCapacity: DESIGNED_CAPACITY_MWH,
      maxCapacity: this.maxCapacity,
      currentCapacity: Math.round(this.energy),
      voltage: openCircuitVoltage(percent),
      capacityUnit: 'mWh',
      percent: Math.round(percent * 10) / 10,
      timeRemaining: this.charging ? null : Math.round((this.energy / draw) * 60),
      temperature: roundCelsius(this.temperature.value()),
      acConnected: this.ac,
      type: 'Li-ion',
      model: 'HS21-BAT-2000',
      manufacturer: 'headsetd (simulated)',
      serial: this.serial,
    };
  }

  lowBatteryThreshold(): number {
    return this.threshold;
  }

  setLowBatteryThreshold(percent: number): void {
    this.threshold = numberInRangeOrThrow(percent, 'lowBatteryThreshold', 0, 100, { unit: '%' });
    this.warned = false;
  }
}

/** A Li-ion cell's open-circuit voltage (V) against its charge: 4.2 V full, a knee under 10 %. */
export function openCircuitVoltage(percent: number): number {
  const p = Math.max(0, Math.min(100, percent));
  const knee = p < 10 ? 0.35 * (1 - p / 10) : 0;
  return Math.round((3.35 + 0.85 * (p / 100) - knee) * 1000) / 1000;
}

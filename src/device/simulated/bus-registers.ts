/**
 * The register map of the simulated peripheral bus (docs/device.md §Peripheral bus). Register
 * values are integers in fixed units (hundredths of a step, mN, µm, millidegrees, tenths of a
 * percent, mV) so that they read like a real device's registers.
 */
import { ELECTRODES, type Electrode, electrodesAmong } from '../../core/electrodes.js';
import {
  type AcquisitionState,
  type BatteryStatus,
  type ImuReading,
  LED_INDICES,
  type LedIndex,
  type LedState,
} from '../headset.js';

/** Peripheral ids, the packet's `peripheral`. */
export const PERIPHERAL = { adc: 1, motor: 2, led: 3, imu: 4, power: 5 } as const;
/** ADS1299's device-id register value. */
const ADC_ID = 0x3e;

/** What the bus reaches into: the headset's models. */
export interface BusTargets {
  acquisition(): AcquisitionState;
  measuringImpedance(): boolean;
  motorPosition(electrode: Electrode): number;
  motorState(electrode: Electrode): number;
  motorForce(electrode: Electrode): number;
  setMotorFault(electrode: Electrode, faulted: boolean): void;
  led(index: LedIndex): LedState;
  setLed(index: LedIndex, change: { color?: string; blinksPerSecond?: number }): void;
  /** Channel 0 primary, 1..4 nodes 0..3. */
  imu(channel: number): ImuReading;
  battery(): BatteryStatus;
  drawMilliwatts(): number;
  setAcConnected(connected: boolean): void;
  lowBatteryThreshold(): number;
  setLowBatteryThreshold(percent: number): void;
}

export interface Register {
  readonly name: string;
  read(channel: number): number;
  /** Absent for read-only registers; returns false for a value the register refuses. */
  write?(channel: number, value: number): boolean;
}

export interface Peripheral {
  readonly channels: number;
  readonly registers: ReadonlyMap<number, Register>;
}

const bool = (value: number): boolean | undefined => (value === 0 ? false : value === 1 ? true : undefined);

/** Builds the peripherals and their registers over the device's models. */
export function peripherals(t: BusTargets): Map<number, Peripheral> {
  const electrode = (channel: number): Electrode => ELECTRODES[channel] ?? 'PZ';
  const led = (channel: number): LedIndex => LED_INDICES[channel] ?? 'USER';
  const imuAxis = (axis: keyof ImuReading) => (channel: number) => Math.round(t.imu(channel)[axis] * 1000);
  const adcStatus = (): number => (t.measuringImpedance() ? 2 : t.acquisition().streaming ? 1 : 0);
  const channelMask = (): number =>
    electrodesAmong(t.acquisition().config.channels).reduce(
      (mask, e) => mask | (1 << ELECTRODES.indexOf(e)),
      0,
    );
  const table = (entries: [number, Register][]): Map<number, Register> => new Map(entries);
  return new Map<number, Peripheral>([
    [
      PERIPHERAL.adc,
      {
        channels: 1,
        registers: table([
          [0x00, { name: 'ID', read: () => ADC_ID }],
          [0x01, { name: 'SAMPLE_RATE', read: () => t.acquisition().config.samplingFrequency }],
          [0x02, { name: 'GAIN', read: () => t.acquisition().config.gain }],
          [0x03, { name: 'STATUS', read: adcStatus }],
          [0x04, { name: 'CHANNEL_MASK', read: channelMask }],
          [0x05, { name: 'SAMPLE_COUNT', read: () => t.acquisition().samples }],
        ]),
      },
    ],
    [
      PERIPHERAL.motor,
      {
        channels: ELECTRODES.length,
        registers: table([
          [0x00, { name: 'POSITION', read: (c) => Math.round(t.motorPosition(electrode(c)) * 100) }],
          [0x01, { name: 'STATE', read: (c) => t.motorState(electrode(c)) }],
          [0x02, { name: 'FORCE', read: (c) => Math.round(t.motorForce(electrode(c)) * 1000) }],
          [
            0x03,
            {
              name: 'FAULT',
              read: (c) => (t.motorState(electrode(c)) === 4 ? 1 : 0),
              write: (c, v) => {
                const faulted = bool(v);
                if (faulted === undefined) return false;
                t.setMotorFault(electrode(c), faulted);
                return true;
              },
            },
          ],
        ]),
      },
    ],
    [
      PERIPHERAL.led,
      {
        channels: LED_INDICES.length,
        registers: table([
          [
            0x00,
            {
              name: 'COLOR',
              read: (c) => Number.parseInt(t.led(led(c)).color.slice(1), 16),
              write: (c, v) => {
                if (v < 0 || v > 0xffffff) return false;
                t.setLed(led(c), { color: `#${v.toString(16).padStart(6, '0')}` });
                return true;
              },
            },
          ],
          [
            0x01,
            {
              name: 'BLINK_RATE',
              read: (c) => Math.round(t.led(led(c)).blinksPerSecond * 10),
              write: (c, v) => {
                if (v < 0 || v > 200) return false;
                t.setLed(led(c), { blinksPerSecond: v / 10 });
                return true;
              },
            },
          ],
          [0x02, { name: 'ACTIVE', read: (c) => (t.led(led(c)).active ? 1 : 0) }],
        ]),
      },
    ],
    [
      PERIPHERAL.imu,
      {
        channels: 5,
        registers: table([
          [0x00, { name: 'POS_X', read: imuAxis('pos_x') }],
          [0x01, { name: 'POS_Y', read: imuAxis('pos_y') }],
          [0x02, { name: 'POS_Z', read: imuAxis('pos_z') }],
          [0x03, { name: 'ROLL', read: imuAxis('roll') }],
          [0x04, { name: 'PITCH', read: imuAxis('pitch') }],
          [0x05, { name: 'YAW', read: imuAxis('yaw') }],
        ]),
      },
    ],
    [
      PERIPHERAL.power,
      {
        channels: 1,
        registers: table([
          [0x00, { name: 'PERCENT', read: () => Math.round(t.battery().percent * 10) }],
          [0x01, { name: 'VOLTAGE', read: () => Math.round(t.battery().voltage * 1000) }],
          [0x02, { name: 'CHARGING', read: () => (t.battery().isCharging ? 1 : 0) }],
          [
            0x03,
            {
              name: 'AC_CONNECTED',
              read: () => (t.battery().acConnected ? 1 : 0),
              write: (_c, v) => {
                const connected = bool(v);
                if (connected === undefined) return false;
                t.setAcConnected(connected);
                return true;
              },
            },
          ],
          [0x04, { name: 'CYCLE_COUNT', read: () => t.battery().cycleCount }],
          [
            0x05,
            {
              name: 'LOW_THRESHOLD',
              read: () => Math.round(t.lowBatteryThreshold()),
              write: (_c, v) => {
                if (v < 0 || v > 100) return false;
                t.setLowBatteryThreshold(v);
                return true;
              },
            },
          ],
          [0x06, { name: 'DRAW', read: () => Math.round(t.drawMilliwatts()) }],
        ]),
      },
    ],
  ]);
}

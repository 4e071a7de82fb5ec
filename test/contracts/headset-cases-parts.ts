/**
 * The Headset contract's cases on the parts besides the EEG front end: motors, LEDs, IMU, power,
 * thermal model and the peripheral bus. A device that has a part (the simulated headset and the
 * replay device have them all) refuses a bad argument with a DeviceArgumentError naming the field;
 * one that lacks it is held to headset-cases-capabilities.ts instead.
 */
import { expect } from 'vitest';
import { ELECTRODES } from '../../src/core/electrodes.js';
import { DeviceArgumentError } from '../../src/device/errors.js';
import {
  type DebugCommand,
  IMU_DEFAULT_RATE,
  IMU_NODE_COUNT,
  IMU_RATES,
  MOTOR_STATE,
} from '../../src/device/headset.js';
import { onDeviceTime } from '../support/device-time.js';
import type { HeadsetCase } from './headset-case.js';
import { requirePart } from '../../src/device/capabilities.js';

function refusal(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

async function rejected(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: unknown) => error,
  );
}

/** A read request on the bus: `count` registers from `address`. */
function read(peripheral: number, channel: number, address: number, count = 1): DebugCommand {
  return {
    packetType: 1,
    cmdResp: 1,
    peripheral,
    peripheralChannels: channel,
    parameter: [address, count],
    data: [],
  };
}

const IMU_FIELDS = ['pos_x', 'pos_y', 'pos_z', 'roll', 'pitch', 'yaw'] as const;

export const PART_CASES: readonly HeadsetCase[] = [
  {
    title:
      'a motor retracts by its displacement on device time and ends idle; a bad command is a DeviceArgumentError',
    needs: ['motors'],
    covers: ['motors.positions', 'motors.states', 'motors.move', 'motors.waitUntilComplete'],
    async run({ device, clock }) {
      const before = requirePart(device, 'motors').positions(['O1']).O1 ?? 0;
      expect(before).toBeGreaterThan(10);
      await requirePart(device, 'motors').move([{ electrode: 'O1', movement: 'RETRACT', displacement: 10 }]);
      expect(requirePart(device, 'motors').states(['O1']).O1).toBe(MOTOR_STATE.moving);
      await onDeviceTime(clock, requirePart(device, 'motors').waitUntilComplete(['O1']));
      expect(requirePart(device, 'motors').positions(['O1']).O1).toBeCloseTo(before - 10, 9);
      expect(requirePart(device, 'motors').states(['O1']).O1).toBe(MOTOR_STATE.idle);
      const bad = await rejected(
        requirePart(device, 'motors').move([{ electrode: 'O1', movement: 'SIDEWAYS' }]),
      );
      expect(bad).toBeInstanceOf(DeviceArgumentError);
      expect(bad).toMatchObject({ field: 'configuration/0/movement', value: 'SIDEWAYS' });
    },
  },
  {
    title: 'a reset moves all 21 motors; stopAll stops them where they are and names those that moved',
    needs: ['motors'],
    covers: ['motors.reset', 'motors.stopAll', 'motors.states', 'motors.positions'],
    async run({ device, clock }) {
      const states = await requirePart(device, 'motors').reset('min');
      expect(Object.keys(states).sort()).toEqual([...ELECTRODES].sort());
      clock.advance(200);
      const moving = Object.entries(requirePart(device, 'motors').states())
        .filter(([, state]) => state === MOTOR_STATE.moving)
        .map(([electrode]) => electrode);
      expect(moving.length).toBeGreaterThan(0);
      const where = requirePart(device, 'motors').positions();
      expect(requirePart(device, 'motors').stopAll().sort()).toEqual(moving.sort());
      expect(Object.values(requirePart(device, 'motors').states())).not.toContain(MOTOR_STATE.moving);
      clock.advance(1000);
      expect(requirePart(device, 'motors').positions()).toEqual(where);
      expect(requirePart(device, 'motors').stopAll()).toEqual([]);
      const bad = await rejected(requirePart(device, 'motors').reset('MIDDLE'));
      expect(bad).toBeInstanceOf(DeviceArgumentError);
      expect(bad).toMatchObject({ field: 'position', allowed: ['MIN', 'MAX'] });
    },
  },
  {
    title: 'LEDs start USER off and STATUS steady green; a blinking LED is lit the first half of each period',
    needs: ['leds'],
    covers: ['leds.read', 'leds.set'],
    async run({ device, clock }) {
      expect(requirePart(device, 'leds').read()).toMatchObject({
        index: 'USER',
        color: '#000000',
        state: 'OFF',
        active: false,
      });
      expect(requirePart(device, 'leds').read('status')).toMatchObject({
        index: 'STATUS',
        state: 'STATIC',
        active: true,
      });
      const settings = await requirePart(device, 'leds').set({
        index: 'user',
        color: '#0f0',
        blinksPerSecond: 2,
      });
      expect(settings).toEqual({ index: 'USER', color: '#00FF00', blinksPerSecond: 2 });
      expect(requirePart(device, 'leds').read('USER')).toMatchObject({ state: 'BLINKING', active: true });
      clock.advance(300);
      expect(requirePart(device, 'leds').read('USER').active).toBe(false);
      clock.advance(250);
      expect(requirePart(device, 'leds').read('USER').active).toBe(true);
      const colour = await rejected(requirePart(device, 'leds').set({ color: 'green' }));
      expect(colour).toBeInstanceOf(DeviceArgumentError);
      expect(colour).toMatchObject({ field: 'color', value: 'green' });
      const rate = await rejected(requirePart(device, 'leds').set({ blinksPerSecond: 21 }));
      expect(rate).toMatchObject({ field: 'blinksPerSecond', value: 21 });
      expect(refusal(() => requirePart(device, 'leds').read('SIDE'))).toBeInstanceOf(DeviceArgumentError);
    },
  },
  {
    title:
      'the IMU answers the primary and nodes 0..3 in mm and degrees, moving with device time; other nodes are refused',
    needs: ['imu'],
    covers: ['imu.primary', 'imu.node'],
    async run({ device, clock }) {
      const readings = [
        requirePart(device, 'imu').primary(),
        ...Array.from({ length: IMU_NODE_COUNT }, (_, i) => requirePart(device, 'imu').node(i)),
      ];
      for (const reading of readings) {
        for (const field of IMU_FIELDS) {
          expect(Number.isFinite(reading[field])).toBe(true);
          expect(Math.abs(reading[field])).toBeLessThan(100);
        }
      }
      const before = requirePart(device, 'imu').primary();
      clock.advance(2000);
      expect(requirePart(device, 'imu').primary()).not.toEqual(before);
      const bad = refusal(() => requirePart(device, 'imu').node(IMU_NODE_COUNT));
      expect(bad).toBeInstanceOf(DeviceArgumentError);
      expect(bad).toMatchObject({ field: 'nodeIndex', value: IMU_NODE_COUNT });
    },
  },
  {
    title:
      'the IMU samples at its output data rate: reads within one sample period agree, the next instant is a new sample, a rate it lacks is refused',
    needs: ['imu'],
    covers: ['imu.rate', 'imu.setRate'],
    async run({ device, clock }) {
      const imu = requirePart(device, 'imu');
      expect(IMU_RATES).toContain(imu.rate());
      imu.setRate(25);
      expect(imu.rate()).toBe(25);
      // 40 ms sample period from the change: reads 10 and 30 ms in are one sample; 45 ms is the next.
      clock.advance(10);
      const first = imu.primary();
      const firstNode = imu.node(1);
      clock.advance(20);
      expect(imu.primary()).toEqual(first);
      expect(imu.node(1)).toEqual(firstNode);
      clock.advance(15);
      expect(imu.primary()).not.toEqual(first);
      const bad = refusal(() => {
        imu.setRate(30);
      });
      expect(bad).toBeInstanceOf(DeviceArgumentError);
      expect(bad).toMatchObject({ field: 'rate', value: 30, allowed: [...IMU_RATES] });
      expect(imu.rate()).toBe(25);
      imu.setRate(IMU_DEFAULT_RATE);
    },
  },
  {
    title: 'the battery reads a consistent record; the low-battery threshold is 0..100 %',
    needs: ['battery'],
    covers: ['power.battery', 'power.lowBatteryThreshold', 'power.setLowBatteryThreshold'],
    async run({ device }) {
      const battery = requirePart(device, 'battery').battery();
      expect(battery.hasBattery).toBe(true);
      expect(battery.percent).toBeGreaterThanOrEqual(0);
      expect(battery.percent).toBeLessThanOrEqual(100);
      expect(battery.maxCapacity).toBeLessThanOrEqual(battery.designedCapacity);
      expect(battery.currentCapacity).toBeLessThanOrEqual(battery.maxCapacity);
      expect(battery.capacityUnit).toBe('mWh');
      expect(battery.timeRemaining === null).toBe(battery.isCharging);
      expect(requirePart(device, 'battery').lowBatteryThreshold()).toBe(15);
      requirePart(device, 'battery').setLowBatteryThreshold(30);
      expect(requirePart(device, 'battery').lowBatteryThreshold()).toBe(30);
      const bad = refusal(() => {
        requirePart(device, 'battery').setLowBatteryThreshold(101);
      });
      expect(bad).toBeInstanceOf(DeviceArgumentError);
      expect(bad).toMatchObject({ field: 'lowBatteryThreshold', value: 101 });
      expect(requirePart(device, 'battery').lowBatteryThreshold()).toBe(30);
    },
  },
  {
    title:
      'the thermal model warms the processor with its load and says where the battery temperature comes from',
    needs: ['thermal'],
    covers: ['thermal.processorCelsius', 'thermal.batteryTemperatureSource'],
    async run({ device, clock }) {
      const thermal = device.thermal;
      if (thermal === undefined) throw new Error('the case needs a thermal model');
      const idle = thermal.processorCelsius(0);
      clock.advance(300_000);
      const loaded = thermal.processorCelsius(100);
      expect(loaded).toBeGreaterThan(idle);
      expect(['sensor', 'simulated']).toContain(thermal.batteryTemperatureSource);
      if (device.power !== undefined) expect(typeof device.power.battery().temperature).toBe('number');
    },
  },
  {
    title:
      'the bus answers the ADC registers as the acquisition is configured, keeps scratch registers, and refuses malformed packets',
    needs: ['peripheralBus'],
    covers: ['bus.command', 'eeg.config'],
    async run({ device }) {
      const config = device.eeg.config();
      const adc = await requirePart(device, 'peripheralBus').command(read(1, 0, 0, 3));
      expect(adc).toMatchObject({
        packetType: 2,
        srcDevice: 1,
        cmdResp: 0,
        peripheral: 1,
        parameter: [0, 3],
      });
      expect(adc.data).toEqual([0x3e, Math.round(config.samplingFrequency), config.gain]);
      const write = await requirePart(device, 'peripheralBus').command({
        ...read(3, 0, 0x10),
        cmdResp: 2,
        data: ['0x2A'],
      });
      expect(write).toMatchObject({ cmdResp: 0, data: [42] });
      expect((await requirePart(device, 'peripheralBus').command(read(3, 0, 0x10))).data).toEqual([42]);
      expect((await requirePart(device, 'peripheralBus').command(read(9, 0, 0))).cmdResp).toBe(1);
      const bad = await rejected(
        requirePart(device, 'peripheralBus').command({ ...read(1, 0, 0), txnID: 'seven' }),
      );
      expect(bad).toBeInstanceOf(DeviceArgumentError);
      expect(bad).toMatchObject({ field: 'txnID', details: { path: '/txnID', value: 'seven' } });
    },
  },
];

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SimulatedHeadset } from './index.js';
import { advance, collectEvents, fakeTimeHeadset } from '../../../test/support/device.js';
import { CPU_BOUND_TIMEOUT_MS } from '../../../test/support/wait.js';

let headset: SimulatedHeadset | undefined;

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(async () => {
  await headset?.close();
  vi.useRealTimers();
});

function lowBatteryEvents(events: ReturnType<typeof collectEvents>): number {
  return events.filter((e) => e.type === 'system' && e.eventType === 'low_battery').length;
}

describe('thermal model', () => {
  // Forty minutes of the device on fake time, EEG included: bound by CPU (CPU_BOUND_TIMEOUT_MS).
  it('warms the battery with the load, and more while charging, as a first-order lag', {
    timeout: CPU_BOUND_TIMEOUT_MS,
  }, async () => {
    headset = fakeTimeHeadset({ battery: { initialPercent: 40 } });
    const idle = headset.power.battery().temperature ?? 0;
    expect(idle).toBeCloseTo(25.4, 1);
    await headset.eeg.start('client');
    await advance(10 * 60_000, 60_000);
    const acquiring = headset.power.battery().temperature ?? 0;
    expect(acquiring).toBeGreaterThan(idle + 0.3);
    expect(acquiring).toBeLessThan(27);
    await headset.eeg.stop('client');
    headset.simulation.setAcConnected(true);
    await advance(5 * 60_000, 60_000);
    const fiveMinutes = headset.power.battery().temperature ?? 0;
    await advance(25 * 60_000, 60_000);
    const thirtyMinutes = headset.power.battery().temperature ?? 0;
    // Rising toward 32.5 °C with a 10-minute time constant: well on its way, never past it.
    expect(fiveMinutes).toBeGreaterThan(acquiring + 1.5);
    expect(thirtyMinutes).toBeGreaterThan(fiveMinutes);
    expect(thirtyMinutes).toBeLessThanOrEqual(32.5);
    expect(thirtyMinutes).toBeGreaterThan(31.5);
  });

  it('heats the processor with the load it is fed, toward 75 °C at full load', async () => {
    headset = fakeTimeHeadset();
    expect(headset.thermal.batteryTemperatureSource).toBe('simulated');
    expect(headset.thermal.processorCelsius(0)).toBe(35);
    await advance(30_000, 10_000);
    const halfway = headset.thermal.processorCelsius(100);
    expect(halfway).toBeGreaterThan(55);
    expect(halfway).toBeLessThan(65);
    await advance(300_000, 60_000);
    expect(headset.thermal.processorCelsius(100)).toBeCloseTo(75, 0);
    await advance(300_000, 60_000);
    expect(headset.thermal.processorCelsius(10)).toBeLessThan(60);
  });
});

describe('battery', () => {
  it('answers the health record battery shape', () => {
    headset = fakeTimeHeadset();
    const battery = headset.power.battery();
    expect(battery).toMatchObject({
      hasBattery: true,
      isCharging: false,
      acConnected: false,
      capacityUnit: 'mWh',
      type: 'Li-ion',
      percent: 80,
    });
    expect(battery.maxCapacity).toBeLessThanOrEqual(battery.designedCapacity);
    expect(battery.voltage).toBeGreaterThan(3.3);
    expect(battery.voltage).toBeLessThan(4.25);
    expect(battery.timeRemaining).toBeGreaterThan(60);
    expect(Number.isInteger(battery.cycleCount)).toBe(true);
  });

  it('drains with use, faster while acquiring and moving motors', async () => {
    headset = fakeTimeHeadset({ battery: { initialPercent: 50 } });
    const start = headset.power.battery().currentCapacity;
    await advance(120_000, 10_000);
    const idleUse = start - headset.power.battery().currentCapacity;
    await headset.eeg.start('client');
    await advance(120_000, 10_000);
    await headset.eeg.stop('client');
    const afterAcquiring = headset.power.battery().currentCapacity;
    const acquiringUse = start - idleUse - afterAcquiring;
    expect(idleUse).toBeGreaterThan(0);
    expect(acquiringUse).toBeGreaterThan(2 * idleUse);

    const beforeMotors = headset.power.battery().currentCapacity;
    await headset.motors.reset('MAX'); // 21 motors moving for 3.5 s or more
    await advance(2_000, 100);
    const motorUse = beforeMotors - headset.power.battery().currentCapacity;
    // Idle, 2 s would take 0.2 mWh; 21 moving motors add 5 W.
    expect(motorUse).toBeGreaterThanOrEqual(2);
  });

  it('emits low_battery once when crossing the threshold (default 15 %)', async () => {
    headset = fakeTimeHeadset({ battery: { initialPercent: 15.05 } });
    const events = collectEvents(headset);
    await headset.eeg.start('client');
    await advance(30_000, 1000);
    expect(headset.power.battery().percent).toBeLessThan(15);
    expect(lowBatteryEvents(events)).toBe(1);
    expect(events.find((e) => e.type === 'system' && e.eventType === 'low_battery')).toMatchObject({
      level: 'warning',
    });
    await advance(30_000, 1000);
    expect(lowBatteryEvents(events)).toBe(1);
  });

  it('honours a configured threshold', async () => {
    headset = fakeTimeHeadset({ battery: { initialPercent: 40, lowBatteryThreshold: 30 } });
    const events = collectEvents(headset);
    await advance(5_000);
    expect(lowBatteryEvents(events)).toBe(0);
    headset.power.setLowBatteryThreshold(45);
    await advance(2_000);
    expect(lowBatteryEvents(events)).toBe(1);
    expect(() => {
      headset?.power.setLowBatteryThreshold(120);
    }).toThrow(/0 to 100/);
  });

  it('charges while the charger is connected, then stops charging when full', async () => {
    headset = fakeTimeHeadset({ battery: { initialPercent: 95 } });
    const events = collectEvents(headset);
    headset.simulation.setAcConnected(true);
    expect(headset.power.battery()).toMatchObject({
      isCharging: true,
      acConnected: true,
      timeRemaining: null,
    });
    await advance(60_000, 1000);
    expect(headset.power.battery().percent).toBeGreaterThan(95);
    await advance(600_000, 10_000);
    expect(headset.power.battery()).toMatchObject({ percent: 100, isCharging: false, acConnected: true });
    const types = events.flatMap((e) => (e.type === 'system' ? [e.eventType] : []));
    expect(types).toEqual(['charging_started', 'charging_stopped']);
  });

  it('counts charge cycles from the energy drawn', async () => {
    headset = fakeTimeHeadset({ battery: { initialPercent: 100 } });
    const before = headset.power.battery().cycleCount;
    await headset.eeg.configure({ samplingFrequency: 16000 });
    await headset.eeg.start('client');
    await headset.eeg.stop('client');
    // Idle draw for long enough to empty the whole pack once: the count goes up by one.
    headset.power.update(Date.now());
    vi.setSystemTime(Date.now() + 30 * 3_600_000);
    headset.power.update(Date.now());
    expect(headset.power.battery().percent).toBe(0);
    expect(headset.power.battery().cycleCount).toBe(before + 1);
  });
});

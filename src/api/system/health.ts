/**
 * GET /system/healthz: the health record (docs/system-paths.md §The device), bare, with real figures
 * of this machine (cpu, ram, storage of the data dir), of the service's own process, and the
 * device's battery. `status` is
 * `degraded` when any rule of platform/metrics/health.ts finds a problem (docs/systems.md §Health).
 */
import type { FastifyInstance } from 'fastify';
import { healthProblems } from '../../platform/metrics/health.js';
import type { BatteryStatus } from '../../device/headset.js';
import type { SystemContext } from './context.js';
import { HealthRecord } from './schemas.js';
import { capabilities as capabilitiesOf } from '../../device/capabilities.js';

const tags = ['system: device'];

/**
 * The record's counts and measures in whole numbers: the health record says only "numbers", and
 * the maker's SDK (docs/instinct-sdk.md) refuses a fraction in these fields, so one answer serves
 * both. The voltage is therefore in mV; tenths stay in GET /system/status.
 */
function wholeBattery(battery: BatteryStatus): Record<string, unknown> {
  const whole = (v: number) => Math.round(v);
  return {
    ...battery,
    cycleCount: whole(battery.cycleCount),
    designedCapacity: whole(battery.designedCapacity),
    maxCapacity: whole(battery.maxCapacity),
    currentCapacity: whole(battery.currentCapacity),
    voltage: Math.round(battery.voltage * 1000),
    percent: whole(battery.percent),
    timeRemaining: battery.timeRemaining === null ? null : whole(battery.timeRemaining),
  };
}

/**
 * The battery of a device that has none (a live amplifier that reports none): the record keeps
 * its shape, so that a client that reads it (the maker's SDK) still parses it, and says so with
 * `hasBattery: false`; every figure is 0 and carries no information, the time left and the
 * temperature are null, and no health rule reads it (docs/devices.md §Capabilities).
 */
const NO_BATTERY: BatteryStatus = Object.freeze({
  hasBattery: false,
  cycleCount: 0,
  isCharging: false,
  designedCapacity: 0,
  maxCapacity: 0,
  currentCapacity: 0,
  voltage: 0,
  capacityUnit: 'mWh',
  percent: 0,
  timeRemaining: null,
  temperature: null,
  acConnected: false,
  type: 'none',
  model: '',
  manufacturer: '',
  serial: '',
});

function wholeValues<T extends Record<string, number>>(figures: T): T {
  return Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, Math.round(v)])) as T;
}

export function healthRoutes(
  app: FastifyInstance,
  context: Pick<SystemContext, 'device' | 'hostMetrics' | 'httpPort' | 'settings' | 'serviceMetrics'>,
): void {
  const { device } = context;
  app.get(
    '/system/healthz',
    {
      schema: {
        tags,
        summary: 'Health record (bare): host figures, battery, ports, status',
        response: { 200: HealthRecord },
      },
    },
    async () => {
      const host = context.hostMetrics.sample();
      const capabilities = capabilitiesOf(device);
      const battery = device.power?.battery() ?? NO_BATTERY;
      const states = device.motors?.states() ?? {};
      const faulted = Object.entries(states)
        .filter(([, code]) => code === 4)
        .map(([electrode]) => electrode);
      const threshold = device.power?.lowBatteryThreshold() ?? 0;
      const problems = healthProblems(host, battery, threshold, faulted);
      // A live device's amplifier gone (unplugged, its outlet stopped): no EEG until it is back.
      const lost = device.status().lost;
      if (lost !== undefined) problems.push(lost);
      // A live source off its declared rate: its recordings' time is wrong by that much.
      const rateMismatch = device.status().rateMismatch;
      if (rateMismatch !== undefined) problems.push(rateMismatch);
      return {
        status: problems.length === 0 ? 'healthy' : 'degraded',
        problems,
        httpPort: context.httpPort(),
        grpcPort: 0,
        host: context.settings.hostname(),
        battery: wholeBattery(battery),
        capabilities: { ...capabilities },
        cpu: {
          ...host.cpu,
          temperature: host.cpu.temperature === null ? null : Math.round(host.cpu.temperature),
        },
        ram: wholeValues(host.ram),
        storage: wholeValues(host.storage),
        service: context.serviceMetrics.sample(),
      };
    },
  );
}

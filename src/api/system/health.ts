/**
 * GET /system/healthz: the health record (docs/system-paths.md §The device), bare, with real figures
 * of this machine (cpu, ram, storage of the data dir), of the service's own process, and the
 * device's battery. `status` is
 * `degraded` when any rule of device/health.ts finds a problem (docs/systems.md §Health).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { healthProblems } from '../../device/health.js';
import type { BatteryStatus } from '../../device/headset.js';
import type { SystemContext } from './index.js';

const tags = ['system: device'];

const HealthRecord = Type.Object({
  status: Type.Enum(['healthy', 'degraded']),
  problems: Type.Array(Type.String()),
  httpPort: Type.Integer(),
  grpcPort: Type.Integer({ description: 'Always 0: no gRPC listener.' }),
  host: Type.String({ description: 'The device hostname (GET /system/hostname).' }),
  battery: Type.Object(
    {
      cycleCount: Type.Integer(),
      designedCapacity: Type.Integer(),
      maxCapacity: Type.Integer(),
      currentCapacity: Type.Integer(),
      voltage: Type.Integer({
        description: 'mV (whole numbers, as the peripheral bus and the maker’s SDK read it).',
      }),
      percent: Type.Integer({ description: 'Whole percent (GET /system/status has tenths).' }),
      timeRemaining: Type.Union([Type.Integer(), Type.Null()], {
        description: 'Minutes; null while charging.',
      }),
      temperature: Type.Union([Type.Number(), Type.Null()], {
        description: '°C of the pack (added to the reference record).',
      }),
    },
    { additionalProperties: true, description: 'The health record battery, plus temperature.' },
  ),
  cpu: Type.Object({
    load: Type.Number({ description: 'Percent of all cores busy since the previous health call.' }),
    temperature: Type.Union([Type.Integer(), Type.Null()], {
      description:
        "Whole °C: the machine's hottest sensor, else the device's thermal model fed with the real load (GET /system/status says which, in tenths).",
    }),
    totalClockSpeed: Type.Number({ description: 'GHz, nominal.' }),
    currentClockSpeed: Type.Number({ description: 'GHz, current mean.' }),
  }),
  ram: Type.Object(
    { total: Type.Integer(), available: Type.Integer(), free: Type.Integer() },
    { description: 'Bytes.' },
  ),
  storage: Type.Object(
    { total: Type.Integer(), free: Type.Integer() },
    { description: 'Bytes of the data dir file system.' },
  ),
  service: Type.Object(
    {
      rss: Type.Number({ description: "Bytes of resident memory of the service's process (children not)." }),
      heapUsed: Type.Number({ description: "Bytes of the main thread's JavaScript heap in use." }),
      openFiles: Type.Union([Type.Integer(), Type.Null()], { description: 'Open file descriptors.' }),
      childProcesses: Type.Union([Type.Integer(), Type.Null()], {
        description: 'Processes descending from the service (external nodes and their children).',
      }),
      eventLoopDelayMs: Type.Union(
        [Type.Object({ p50: Type.Number(), p99: Type.Number(), max: Type.Number() }), Type.Null()],
        {
          description:
            "The API thread's event loop delay since the previous health call, ms; null on the first call (the monitor starts then, and stops after a minute without calls).",
        },
      ),
    },
    { description: 'Figures of the service itself (added to the reference record).' },
  ),
});

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

function wholeValues<T extends Record<string, number>>(figures: T): T {
  return Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, Math.round(v)])) as T;
}

export function healthRoutes(app: FastifyInstance, context: SystemContext): void {
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
      const battery = device.power.battery();
      const states = device.motors.states();
      const faulted = Object.entries(states)
        .filter(([, code]) => code === 4)
        .map(([electrode]) => electrode);
      const problems = healthProblems(host, battery, device.power.lowBatteryThreshold(), faulted);
      return {
        status: problems.length === 0 ? 'healthy' : 'degraded',
        problems,
        httpPort: context.httpPort(),
        grpcPort: 0,
        host: context.settings.hostname(),
        battery: wholeBattery(battery),
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

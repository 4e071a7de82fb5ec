/**
 * GET /system/healthz: the health record (docs/system-paths.md), bare, with real figures
 * of this machine (cpu, ram, storage of the data dir) and the device's battery. `status` is
 * `degraded` when any rule of {@link healthProblems} finds a problem (docs/systems.md §Health).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { BatteryStatus } from '../../device/headset.js';
import type { HostFigures } from '../../device/host-metrics.js';
import type { SystemContext } from './index.js';

const tags = ['system: device'];

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
  battery: BatteryStatus,
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

const HealthRecord = Type.Object({
  status: Type.Enum(['healthy', 'degraded']),
  problems: Type.Array(Type.String()),
  httpPort: Type.Integer(),
  grpcPort: Type.Integer({ description: 'Always 0: no gRPC listener.' }),
  host: Type.String({ description: 'The device hostname (GET /system/hostname).' }),
  battery: Type.Object(
    {},
    { additionalProperties: true, description: 'The battery object of the health record.' },
  ),
  cpu: Type.Object({
    load: Type.Number({ description: 'Percent of all cores busy since the previous health call.' }),
    temperature: Type.Union([Type.Number(), Type.Null()], {
      description: '°C; null where the machine has no sensor.',
    }),
    totalClockSpeed: Type.Number({ description: 'GHz, nominal.' }),
    currentClockSpeed: Type.Number({ description: 'GHz, current mean.' }),
  }),
  ram: Type.Object(
    { total: Type.Number(), available: Type.Number(), free: Type.Number() },
    { description: 'Bytes.' },
  ),
  storage: Type.Object(
    { total: Type.Number(), free: Type.Number() },
    { description: 'Bytes of the data dir file system.' },
  ),
});

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
        battery,
        cpu: host.cpu,
        ram: host.ram,
        storage: host.storage,
      };
    },
  );
}

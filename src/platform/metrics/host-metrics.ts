/**
 * Real figures of the machine the service runs on, for GET /system/healthz: CPU load, clock and
 * temperature, memory and the storage of the data dir's file system. Linux sources (/proc, /sys)
 * with portable fallbacks from `node:os`. The CPU temperature comes from the machine's sensors
 * (thermal zones, else hwmon); where it has none, from a model fed with the real CPU load (the
 * device's thermal model), and `cpuThermal()` says which.
 */
import { readdirSync, readFileSync, statfsSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';

export interface CpuFigures {
  /** Percent of all cores busy since the previous sample (first call: 1-minute load average). */
  load: number;
  /** °C of the hottest sensor, else of the model; null with neither. */
  temperature: number | null;
  /** GHz: the nominal (maximum) clock of one core. */
  totalClockSpeed: number;
  /** GHz: the mean current clock over the cores. */
  currentClockSpeed: number;
}

export interface HostFigures {
  cpu: CpuFigures;
  /** Bytes. `available` counts reclaimable caches (MemAvailable); `free` does not. */
  ram: { total: number; available: number; free: number };
  /** Bytes of the data dir's file system; `free` is what this (unprivileged) process may use. */
  storage: { total: number; free: number };
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

interface CpuTimes {
  busy: number;
  total: number;
}

function cpuTimes(): CpuTimes {
  let busy = 0;
  let total = 0;
  for (const cpu of os.cpus()) {
    const t = cpu.times;
    const sum = t.user + t.nice + t.sys + t.idle + t.irq;
    total += sum;
    busy += sum - t.idle;
  }
  return { busy, total };
}

/** The hottest of `files` (millidegrees, as /sys gives them) in °C, or null when none reads. */
function hottest(files: readonly string[]): number | null {
  let max: number | null = null;
  for (const file of files) {
    const value = Number(readText(file)?.trim());
    if (Number.isFinite(value) && value > 0) max = Math.max(max ?? -Infinity, value / 1000);
  }
  return max === null ? null : round(max, 1);
}

function entries(dir: string, prefix: string): string[] {
  try {
    return readdirSync(dir).filter((name) => name.startsWith(prefix));
  } catch {
    return [];
  }
}

/** Hottest thermal zone in °C (`<root>/thermal_zone*\/temp`), or null. */
export function cpuTemperature(root = '/sys/class/thermal'): number | null {
  return hottest(entries(root, 'thermal_zone').map((zone) => `${root}/${zone}/temp`));
}

/** Hottest hwmon sensor in °C (`<root>/hwmon*\/temp*_input`), or null. */
export function hwmonTemperature(root = '/sys/class/hwmon'): number | null {
  const files = entries(root, 'hwmon').flatMap((chip) =>
    entries(`${root}/${chip}`, 'temp')
      .filter((name) => name.endsWith('_input'))
      .map((name) => `${root}/${chip}/${name}`),
  );
  return hottest(files);
}

/** The machine's CPU temperature in °C from sysfs under `sysRoot`: thermal zones, else hwmon. */
export function sensorTemperature(sysRoot = '/sys'): number | null {
  return cpuTemperature(`${sysRoot}/class/thermal`) ?? hwmonTemperature(`${sysRoot}/class/hwmon`);
}

/** Mean current and nominal clock in GHz from /proc/cpuinfo and cpufreq, else `os.cpus()`. */
function clockSpeeds(): { current: number; nominal: number } {
  const info = readText('/proc/cpuinfo') ?? '';
  const mhz = [...info.matchAll(/^cpu MHz\s*:\s*([\d.]+)/gm)].map((m) => Number(m[1]));
  const osMhz = os
    .cpus()
    .map((c) => c.speed)
    .filter((s) => s > 0);
  const samples = mhz.length > 0 ? mhz : osMhz;
  const current = samples.length > 0 ? samples.reduce((a, b) => a + b, 0) / samples.length / 1000 : 0;
  const maxKhz = Number(readText('/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq')?.trim());
  const modelGhz = /@\s*([\d.]+)\s*GHz/i.exec(os.cpus()[0]?.model ?? '')?.[1];
  const nominal =
    Number.isFinite(maxKhz) && maxKhz > 0
      ? maxKhz / 1e6
      : modelGhz !== undefined
        ? Number(modelGhz)
        : current;
  return { current: round(current, 2), nominal: round(nominal, 2) };
}

function memory(): HostFigures['ram'] {
  const info = readText('/proc/meminfo');
  const kib = (name: string): number | undefined => {
    const match = info === undefined ? null : new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(info);
    return match?.[1] === undefined ? undefined : Number(match[1]) * 1024;
  };
  return {
    total: kib('MemTotal') ?? os.totalmem(),
    available: kib('MemAvailable') ?? os.freemem(),
    free: kib('MemFree') ?? os.freemem(),
  };
}

function storage(dir: string): HostFigures['storage'] {
  const stats = statfsSync(dir);
  return { total: stats.blocks * stats.bsize, free: stats.bavail * stats.bsize };
}

export interface HostMetricsOptions {
  /** Where sysfs is mounted (default `/sys`); tests point it at a fake tree. */
  readonly sysRoot?: string;
  /** °C of the CPU under a load (percent), used where the machine has no sensor. */
  readonly cpuTemperatureModel?: (loadPercent: number) => number;
}

/** Where the CPU temperature comes from: a sensor, the model, or nowhere (null). */
export type CpuTemperatureSource = 'sensor' | 'simulated' | 'none';

/**
 * How long `cpuThermal()` answers its last reading: it is read by every GET /system/status, and
 * reading it (sysfs directories, `os.cpus()`) cost more than the rest of the answer (a profile
 * under load, docs/performance-areas.md §The API's hot path); a temperature moves over seconds.
 */
export const CPU_THERMAL_TTL_MS = 1000;

/** Samples the host; keeps the previous CPU times so that `load` covers the interval between calls. */
export class HostMetrics {
  private previous: CpuTimes | undefined;
  private lastLoad: number | undefined;
  private thermal:
    | { at: number; value: { celsius: number | null; source: CpuTemperatureSource } }
    | undefined;
  private readonly sysRoot: string;

  constructor(
    private readonly dataDir: string,
    private readonly options: HostMetricsOptions = {},
  ) {
    this.sysRoot = options.sysRoot ?? '/sys';
  }

  sample(): HostFigures {
    const now = cpuTimes();
    const before = this.previous;
    this.previous = now;
    const load =
      before !== undefined && now.total > before.total
        ? ((now.busy - before.busy) / (now.total - before.total)) * 100
        : ((os.loadavg()[0] ?? 0) / Math.max(1, os.cpus().length)) * 100;
    this.lastLoad = round(Math.min(100, Math.max(0, load)), 1);
    // The model's temperature follows the new load from now on.
    this.thermal = undefined;
    const clocks = clockSpeeds();
    return {
      cpu: {
        load: this.lastLoad,
        temperature: this.cpuThermal().celsius,
        totalClockSpeed: clocks.nominal,
        currentClockSpeed: clocks.current,
      },
      ram: memory(),
      storage: storage(this.dataDir),
    };
  }

  /**
   * The CPU temperature and its source, without starting a new load interval: the model is fed the
   * load of the last sample (the 1-minute load average before the first).
   */
  cpuThermal(): { celsius: number | null; source: CpuTemperatureSource } {
    const now = performance.now();
    if (this.thermal !== undefined && now - this.thermal.at < CPU_THERMAL_TTL_MS) return this.thermal.value;
    const value = this.readCpuThermal();
    this.thermal = { at: now, value };
    return value;
  }

  private readCpuThermal(): { celsius: number | null; source: CpuTemperatureSource } {
    const sensor = sensorTemperature(this.sysRoot);
    if (sensor !== null) return { celsius: sensor, source: 'sensor' };
    const model = this.options.cpuTemperatureModel;
    if (model === undefined) return { celsius: null, source: 'none' };
    const load = this.lastLoad ?? ((os.loadavg()[0] ?? 0) / Math.max(1, os.availableParallelism())) * 100;
    return { celsius: round(model(load), 1), source: 'simulated' };
  }
}

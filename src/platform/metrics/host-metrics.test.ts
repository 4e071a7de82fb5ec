import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cpuTemperature, HostMetrics, hwmonTemperature } from './host-metrics.js';
import { scratchDir } from '../../../test/support/scratch.js';

/** A fake sysfs tree: files given as path → content. */
function fakeSys(files: Record<string, string>): string {
  const root = scratchDir('sysfs');
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), content);
  }
  return root;
}

describe('host metrics', () => {
  it('reads the hottest thermal zone in °C, and null without zones', () => {
    const root = scratchDir('thermal');
    try {
      expect(cpuTemperature(root)).toBeNull();
      const zones: [string, string][] = [
        ['thermal_zone0', '41500'],
        ['thermal_zone1', '55250'],
        ['cooling_device0', '99000'],
      ];
      for (const [zone, milli] of zones) {
        mkdirSync(path.join(root, zone));
        writeFileSync(path.join(root, zone, 'temp'), `${milli}\n`);
      }
      expect(cpuTemperature(root)).toBe(55.3);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('GET /system/status no longer reads sysfs and os.cpus() per request: the CPU temperature is kept for a second', () => {
    const root = fakeSys({ 'class/thermal/thermal_zone0/temp': '41000\n' });
    try {
      const metrics = new HostMetrics(tmpdir(), { sysRoot: root });
      expect(metrics.cpuThermal().celsius).toBe(41);
      writeFileSync(path.join(root, 'class/thermal/thermal_zone0/temp'), '52000\n');
      // Within CPU_THERMAL_TTL_MS the last reading stands; a health sample reads afresh.
      expect(metrics.cpuThermal().celsius).toBe(41);
      expect(metrics.sample().cpu.temperature).toBe(52);
      expect(metrics.cpuThermal().celsius).toBe(52);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('samples consistent figures of this machine', () => {
    const metrics = new HostMetrics(tmpdir());
    metrics.sample();
    const figures = metrics.sample();
    expect(figures.ram.total).toBeGreaterThan(0);
    expect(figures.ram.available).toBeLessThanOrEqual(figures.ram.total);
    expect(figures.ram.free).toBeLessThanOrEqual(figures.ram.available);
    expect(figures.storage.free).toBeLessThanOrEqual(figures.storage.total);
    expect(figures.cpu.load).toBeGreaterThanOrEqual(0);
    expect(figures.cpu.load).toBeLessThanOrEqual(100);
    expect(figures.cpu.totalClockSpeed).toBeGreaterThan(0);
  });

  it('reads hwmon sensors (temp*_input) where there is no thermal zone', () => {
    const root = fakeSys({
      'class/hwmon/hwmon0/temp1_input': '48000\n',
      'class/hwmon/hwmon0/temp2_input': '61500\n',
      'class/hwmon/hwmon0/temp1_label': 'Package id 0\n',
      'class/hwmon/hwmon1/fan1_input': '90000\n',
    });
    try {
      expect(hwmonTemperature(path.join(root, 'class/hwmon'))).toBe(61.5);
      const metrics = new HostMetrics(tmpdir(), { sysRoot: root, cpuTemperatureModel: () => 99 });
      expect(metrics.cpuThermal()).toEqual({ celsius: 61.5, source: 'sensor' });
      expect(metrics.sample().cpu.temperature).toBe(61.5);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('prefers the host sensor (thermal zone) to the model', () => {
    const root = fakeSys({ 'class/thermal/thermal_zone0/temp': '52300\n' });
    try {
      const metrics = new HostMetrics(tmpdir(), { sysRoot: root, cpuTemperatureModel: () => 99 });
      expect(metrics.sample().cpu.temperature).toBe(52.3);
      expect(metrics.cpuThermal().source).toBe('sensor');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('answers the model fed with the measured load where the host has no sensor, and null without a model', () => {
    const root = fakeSys({ 'class/power_supply/AC/online': '1\n' });
    try {
      const loads: number[] = [];
      const metrics = new HostMetrics(tmpdir(), {
        sysRoot: root,
        cpuTemperatureModel: (load) => {
          loads.push(load);
          return 35 + 0.4 * load;
        },
      });
      const figures = metrics.sample();
      expect(figures.cpu.temperature).toBeCloseTo(35 + 0.4 * figures.cpu.load, 1);
      expect(loads.at(-1)).toBe(figures.cpu.load);
      expect(metrics.cpuThermal().source).toBe('simulated');
      const bare = new HostMetrics(tmpdir(), { sysRoot: root });
      expect(bare.sample().cpu.temperature).toBeNull();
      expect(bare.cpuThermal()).toEqual({ celsius: null, source: 'none' });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

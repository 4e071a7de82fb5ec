import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cpuTemperature, HostMetrics } from './host-metrics.js';

describe('host metrics', () => {
  it('reads the hottest thermal zone in °C, and null without zones', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'thermal-'));
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
});

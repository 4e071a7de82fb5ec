import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { json, type SystemApp, systemApp } from './support.js';
import { scratchDir } from '../../support/scratch.js';

type Status = {
  temperatures: { cpu: { celsius: number; source: string }; battery: { celsius: number; source: string } };
  simulated: string[];
};

describe('temperatures in healthz, battery and status', () => {
  let s: SystemApp | undefined;
  const roots: string[] = [];
  afterEach(async () => {
    await s?.close();
    s = undefined;
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  function sysRoot(zoneMilliCelsius?: string): string {
    const root = scratchDir('sysfs');
    roots.push(root);
    if (zoneMilliCelsius !== undefined) {
      mkdirSync(path.join(root, 'class/thermal/thermal_zone0'), { recursive: true });
      writeFileSync(path.join(root, 'class/thermal/thermal_zone0/temp'), `${zoneMilliCelsius}\n`);
    }
    return root;
  }

  async function read(app: SystemApp) {
    const health = json(await app.app.inject({ method: 'GET', url: '/system/healthz' })) as {
      cpu: { temperature: unknown; load: number };
      battery: { temperature: unknown };
    };
    const battery = json(await app.app.inject({ method: 'GET', url: '/system/battery' }));
    const status = json(await app.app.inject({ method: 'GET', url: '/system/status' })).status as Status;
    return { health, battery, status };
  }

  it('answers numbers for cpu.temperature and the battery temperature from the models where the host has no sensor, and says so', async () => {
    s = await systemApp({ sysRoot: sysRoot() });
    const { health, battery, status } = await read(s);
    expect(typeof health.cpu.temperature).toBe('number');
    expect(health.cpu.temperature).toBeGreaterThanOrEqual(35);
    expect(health.cpu.temperature).toBeLessThanOrEqual(75);
    expect(typeof health.battery.temperature).toBe('number');
    expect(battery.temperature).toBe(health.battery.temperature);
    expect(status.temperatures.cpu.source).toBe('simulated');
    expect(status.temperatures.battery).toEqual({ celsius: battery.temperature, source: 'simulated' });
    expect(status.simulated).toEqual(['battery', 'battery.temperature', 'cpu.temperature']);
  });

  it("answers the host's sensor for cpu.temperature where it has one", async () => {
    s = await systemApp({ sysRoot: sysRoot('47250') });
    const { health, status } = await read(s);
    expect(health.cpu.temperature).toBe(47);
    expect(status.temperatures.cpu).toEqual({ celsius: 47.3, source: 'sensor' });
    expect(status.simulated).toEqual(['battery', 'battery.temperature']);
  });
});

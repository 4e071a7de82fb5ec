import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../../support/wait.js';
import { errorOf, json, type SystemApp, systemApp } from './support.js';

describe('health, hostname, config, status, version and debug', () => {
  let s: SystemApp;
  beforeEach(async () => {
    s = await systemApp({ guides: false });
  });
  afterEach(async () => {
    await s.close();
  });

  it('answers the bare health record with real host figures', async () => {
    const body = json(await s.app.inject({ method: 'GET', url: '/system/healthz' })) as Record<string, any>;
    expect(body.success).toBeUndefined();
    expect(body.status).toMatch(/^(healthy|degraded)$/);
    expect(Array.isArray(body.problems)).toBe(true);
    expect(body.httpPort).toBe(42069);
    expect(body.grpcPort).toBe(0);
    expect(body.ram.total).toBeGreaterThan(body.ram.available);
    expect(body.storage.total).toBeGreaterThan(body.storage.free);
    expect(body.storage.free).toBeGreaterThan(0);
    expect(body.cpu.load).toBeGreaterThanOrEqual(0);
    expect(body.battery).toMatchObject({ hasBattery: true, capacityUnit: expect.any(String) });
    expect(body.battery.percent).toBeGreaterThan(0);
  });

  it("reports the service's own figures, the event loop's delay from the second call on", async () => {
    const first = json(await s.app.inject({ method: 'GET', url: '/system/healthz' })) as Record<string, any>;
    expect(first.service.rss).toBeGreaterThan(first.service.heapUsed);
    expect(first.service.openFiles).toBeGreaterThan(2);
    expect(first.service.childProcesses).toBeGreaterThanOrEqual(0);
    expect(first.service.eventLoopDelayMs).toBeNull();
    // A block of the event loop shows in the delay of a later call. The monitor only starts with
    // the first call, and a block before its timer first fires is not recorded, so the block is
    // made again at each try until a call reads it.
    const block = () => {
      const until = Date.now() + 60;
      while (Date.now() < until) {
        // hold the event loop
      }
    };
    const second = await eventually(
      async () => {
        block();
        const health = json(await s.app.inject({ method: 'GET', url: '/system/healthz' })) as Record<
          string,
          any
        >;
        return health.service.eventLoopDelayMs.max >= 40 ? health : undefined;
      },
      20_000,
      'the blocked event loop in the delay',
    );
    expect(second.service.eventLoopDelayMs.p50).toBeLessThanOrEqual(second.service.eventLoopDelayMs.max);
  });

  it('degrades health when the battery is under the threshold', async () => {
    await s.app.inject({ method: 'PATCH', url: '/system/config', payload: { lowBatteryThreshold: 100 } });
    const body = json(await s.app.inject({ method: 'GET', url: '/system/healthz' })) as Record<string, any>;
    expect(body.status).toBe('degraded');
    expect(body.problems.join(' ')).toContain('Battery');
  });

  it('reads and changes the hostname (RFC 1123), refusing bad names', async () => {
    const initial = json(await s.app.inject({ method: 'GET', url: '/system/hostname' }));
    expect(typeof initial.hostname).toBe('string');
    const form = await s.app.inject({
      method: 'PATCH',
      url: '/system/hostname',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'hostname=Lab-Headset-2',
    });
    expect(json(form)).toEqual({ success: true, hostname: 'lab-headset-2' });
    expect(json(await s.app.inject({ method: 'GET', url: '/system/hostname' })).hostname).toBe(
      'lab-headset-2',
    );
    for (const name of ['-bad', 'under_score', 'a'.repeat(64), 'dots..twice', '']) {
      const res = await s.app.inject({
        method: 'PATCH',
        url: '/system/hostname',
        payload: { hostname: name },
      });
      expect(res.statusCode, name).toBe(422);
      expect(errorOf(res).details?.path).toBe('/hostname');
    }
    const missing = await s.app.inject({ method: 'PATCH', url: '/system/hostname', payload: {} });
    expect(missing.statusCode).toBe(400);
    const typed = await s.app.inject({ method: 'PATCH', url: '/system/hostname', payload: { hostname: 5 } });
    expect(typed.statusCode).toBe(400);
  });

  it('patches the configuration as RFC 7386: nested merge, null restores the default, unknown keys refused', async () => {
    const initial = json(await s.app.inject({ method: 'GET', url: '/system/config' })) as Record<string, any>;
    expect(initial.config.impedance.thresholds).toEqual({ excellent: 5, good: 10, acceptable: 20, poor: 50 });
    const patched = json(
      await s.app.inject({
        method: 'PATCH',
        url: '/system/config',
        payload: { impedance: { thresholds: { poor: 60 } }, lowBatteryThreshold: 25 },
      }),
    ) as Record<string, any>;
    expect(patched.config.impedance.thresholds).toEqual({ excellent: 5, good: 10, acceptable: 20, poor: 60 });
    expect(patched.config.impedance.updateInterval).toBe(1000);
    expect(s.device.power.lowBatteryThreshold()).toBe(25);
    const restored = json(
      await s.app.inject({
        method: 'PATCH',
        url: '/system/config',
        payload: { impedance: { thresholds: { poor: null } } },
      }),
    ) as Record<string, any>;
    expect(restored.config.impedance.thresholds.poor).toBe(50);
    expect(restored.config.lowBatteryThreshold).toBe(25);
    const all = json(
      await s.app.inject({ method: 'PATCH', url: '/system/config', payload: { lowBatteryThreshold: null } }),
    ) as Record<string, any>;
    expect(all.config.lowBatteryThreshold).toBe(15);
    expect(s.device.power.lowBatteryThreshold()).toBe(15);

    const unknown = await s.app.inject({
      method: 'PATCH',
      url: '/system/config',
      payload: { eeg: { colour: 1 } },
    });
    expect(unknown.statusCode).toBe(400);
    expect(errorOf(unknown).details?.path).toBe('/eeg/colour');
    const range = await s.app.inject({
      method: 'PATCH',
      url: '/system/config',
      payload: { lowBatteryThreshold: 150 },
    });
    expect(range.statusCode).toBe(422);
    expect(errorOf(range).details?.path).toBe('/lowBatteryThreshold');
    const order = await s.app.inject({
      method: 'PATCH',
      url: '/system/config',
      payload: { impedance: { thresholds: { good: 3 } } },
    });
    expect(order.statusCode).toBe(422);
    const array = await s.app.inject({ method: 'PATCH', url: '/system/config', payload: [1] });
    expect(array.statusCode).toBe(400);
    expect(json(await s.app.inject({ method: 'GET', url: '/system/config' }))).toEqual(all);
  });

  it('applies the EEG defaults of the configuration to the device and to DELETE /system/sensors/eeg', async () => {
    await s.app.inject({
      method: 'PATCH',
      url: '/system/config',
      payload: { eeg: { samplingFrequency: 500, channels: ['O1', 'O2'] } },
    });
    expect(s.device.eeg.config()).toMatchObject({ samplingFrequency: 500, channels: ['O1', 'O2'] });
    await s.app.inject({ method: 'PUT', url: '/system/sensors/eeg', payload: { samplingFrequency: 1000 } });
    const reset = json(await s.app.inject({ method: 'DELETE', url: '/system/sensors/eeg' }));
    expect(reset).toMatchObject({ config: { samplingFrequency: 500, channels: ['O1', 'O2'] } });
  });

  it('keeps hostname and config across a rebuilt app on the same data dir', async () => {
    await s.app.inject({ method: 'PATCH', url: '/system/hostname', payload: { hostname: 'persisted' } });
    await s.app.inject({ method: 'PATCH', url: '/system/config', payload: { lowBatteryThreshold: 33 } });
    const dataDir = s.dataDir;
    await s.close({ keepData: true });
    s = await systemApp({ dataDir, guides: false });
    expect(json(await s.app.inject({ method: 'GET', url: '/system/hostname' })).hostname).toBe('persisted');
    const config = json(await s.app.inject({ method: 'GET', url: '/system/config' })) as Record<string, any>;
    expect(config.config.lowBatteryThreshold).toBe(33);
    expect(s.device.power.lowBatteryThreshold()).toBe(33);
  });

  it('answers the status and the version', async () => {
    const status = json(await s.app.inject({ method: 'GET', url: '/system/status' })) as Record<string, any>;
    expect(status.status).toMatchObject({
      state: 'idle',
      streams: { total: 0, running: 0 },
      version: '0.0.0-test',
    });
    expect(status.status.uptimeSeconds).toBeGreaterThanOrEqual(0);
    await s.app.inject({ method: 'POST', url: '/system/sensors/eeg/stream' });
    const acquiring = json(await s.app.inject({ method: 'GET', url: '/system/status' })) as Record<
      string,
      any
    >;
    expect(acquiring.status.state).toBe('acquiring');
    const version = json(await s.app.inject({ method: 'GET', url: '/system/version' })) as Record<
      string,
      any
    >;
    expect(version.version).toMatchObject({
      api: '1',
      service: '0.0.0-test',
      hardware: expect.stringContaining('HS-21'),
    });
  });

  it('sends a debug command to the peripheral bus and refuses malformed packets', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/system/debug/command',
      payload: {
        packetType: 1,
        cmdResp: 1,
        peripheral: 1,
        peripheralChannels: 0,
        parameter: ['0x00'],
        data: [],
      },
    });
    expect(res.statusCode).toBe(200);
    expect(json(res)).toMatchObject({ success: true, response: { packetType: 2, cmdResp: 0, data: [0x3e] } });
    const missing = await s.app.inject({
      method: 'POST',
      url: '/system/debug/command',
      payload: { packetType: 1 },
    });
    expect(missing.statusCode).toBe(400);
    expect(errorOf(missing).details?.path).toBeDefined();
    const text = await s.app.inject({
      method: 'POST',
      url: '/system/debug/command',
      payload: {
        packetType: 'one',
        cmdResp: 1,
        peripheral: 1,
        peripheralChannels: 0,
        parameter: [0],
        data: [],
      },
    });
    expect(text.statusCode).toBe(422);
    expect(errorOf(text).details?.path).toBe('/packetType');
  });
});

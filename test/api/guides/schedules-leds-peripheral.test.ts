import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scaledClock } from '../../support/scaled-clock.js';
import type { HubEvent } from '../../../src/events/hub.js';
import { errorOf, json, type SystemApp, systemApp } from '../system/support.js';
import { eventually } from '../../support/wait.js';

describe('schedules, LED visualization and hardware variants', () => {
  let s: SystemApp;
  beforeEach(async () => {
    s = await systemApp({ device: { initialMotorPosition: 40, clock: scaledClock(10) } });
  });
  afterEach(async () => {
    await s.close();
  });

  it('emits a system event when a channel rises by more than thresholdIncrease, then stops when deleted', async () => {
    // Seat O1 so that its baseline is a contact value; lifting it later makes it rise a thousandfold.
    await s.app.inject({
      method: 'POST',
      url: '/electrodes/prepare?wait=true',
      payload: { electrodes: ['O1'], action: 'seat' },
    });
    const events: HubEvent[] = [];
    const unsubscribe = s.events.on((event) => events.push(event));
    const created = json(
      await s.app.inject({
        method: 'POST',
        url: '/electrodes/impedance/schedule',
        payload: { interval: 1, unit: 's', duration: 60, action: 'check', thresholdIncrease: 50 },
      }),
    );
    expect(created).toMatchObject({ success: true, scheduleId: expect.any(String) });
    const id = String(created.scheduleId);
    await eventually(
      () => !s.device.impedance.measuring() && events.some((e) => e.type === 'impedance'),
      3000,
    );
    await s.app.inject({
      method: 'POST',
      url: '/electrodes/prepare?wait=true',
      payload: { electrodes: ['O1'], action: 'retract', amount: 30 },
    });
    await eventually(
      () => events.some((e) => e.type === 'system' && e.eventType === 'impedance_increase'),
      4000,
    ).catch(() => undefined);
    unsubscribe();
    const alert = events.find((e) => e.type === 'system' && e.eventType === 'impedance_increase');
    expect(alert).toMatchObject({ level: 'warning', message: expect.stringContaining('O1') });
    const history = json(
      await s.app.inject({
        method: 'GET',
        url: `/electrodes/impedance/history?sessionId=${id}&timeRange=15m`,
      }),
    );
    expect((history.timeline as unknown[]).length).toBeGreaterThanOrEqual(2);
    const deleted = await s.app.inject({ method: 'DELETE', url: `/electrodes/impedance/schedule/${id}` });
    expect(json(deleted)).toEqual({ success: true, scheduleId: id });
    const again = await s.app.inject({ method: 'DELETE', url: `/electrodes/impedance/schedule/${id}` });
    expect(again.statusCode).toBe(404);
  }, 30_000);

  it('refuses bad schedules', async () => {
    const cases: [object, number, string][] = [
      [{ interval: 100, unit: 'ms', action: 'check', thresholdIncrease: 10 }, 422, '/unit'],
      [{ interval: 0.5, unit: 's', action: 'check', thresholdIncrease: 10 }, 422, '/interval'],
      [{ interval: 1, unit: 'h', duration: 200, action: 'check', thresholdIncrease: 10 }, 422, '/duration'],
      [{ interval: 1, unit: 's', action: 'shout', thresholdIncrease: 10 }, 422, '/action'],
      [{ interval: 1, unit: 's', action: 'check' }, 400, '/thresholdIncrease'],
    ];
    for (const [payload, status, pointer] of cases) {
      const res = await s.app.inject({ method: 'POST', url: '/electrodes/impedance/schedule', payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(status);
      expect(errorOf(res).details?.path, JSON.stringify(payload)).toBe(pointer);
    }
  });

  it('shows the worst level on the STATUS LED while enabled and restores it when disabled', async () => {
    const before = s.device.leds.read('STATUS').color;
    await s.app.inject({ method: 'GET', url: '/system/sensors/impedance/all' });
    const on = json(
      await s.app.inject({
        method: 'POST',
        url: '/leds/impedance-visualization',
        payload: { enabled: true, updateInterval: 100 },
      }),
    );
    // Retracted electrodes read MΩ: very poor, red.
    expect(on).toMatchObject({ enabled: true, level: 'very_poor', color: '#FF0000' });
    expect(s.device.leds.read('STATUS').color).toBe('#FF0000');
    const relaxed = json(
      await s.app.inject({
        method: 'POST',
        url: '/leds/impedance-visualization',
        payload: { thresholds: { poor: 100_000 }, colorScheme: 'colorblind' },
      }),
    );
    expect(relaxed).toMatchObject({ level: 'poor', color: '#FFA000' });
    const off = json(
      await s.app.inject({
        method: 'POST',
        url: '/leds/impedance-visualization',
        payload: { enabled: false },
      }),
    );
    expect(off.enabled).toBe(false);
    expect(s.device.leds.read('STATUS').color).toBe(before);
    const bad = await s.app.inject({
      method: 'POST',
      url: '/leds/impedance-visualization',
      payload: { thresholds: { excellent: 30 } },
    });
    expect(bad.statusCode).toBe(422);
    expect(errorOf(bad).details?.path).toBe('/thresholds');
  });

  it('serves the hardware variants', async () => {
    const config = json(
      await s.app.inject({
        method: 'POST',
        url: '/system/peripheral/electrodes/config',
        payload: { samplingRate: 500, gain: 12, enabled: [1, 2], inputType: 'normal', bias: true },
      }),
    );
    expect(config).toEqual({
      success: true,
      config: { samplingRate: 500, gain: 12, enabled: [1, 2], inputType: 'normal', bias: true },
    });
    const shorted = await s.app.inject({
      method: 'POST',
      url: '/system/peripheral/electrodes/config',
      payload: { inputType: 'shorted' },
    });
    expect(errorOf(shorted).details?.path).toBe('/inputType');
    const cms = await s.app.inject({
      method: 'POST',
      url: '/system/peripheral/electrodes/config',
      payload: { enabled: [0, 11] },
    });
    expect(errorOf(cms).details?.path).toBe('/enabled/1');
    const rate = await s.app.inject({
      method: 'POST',
      url: '/system/peripheral/electrodes/config',
      payload: { samplingRate: 300 },
    });
    expect(rate.statusCode).toBe(422);

    const impedance = json(
      await s.app.inject({ method: 'POST', url: '/system/peripheral/electrodes/impedance' }),
    );
    const electrodes = impedance.electrodes as { index: number; magnitude: number; phase: number }[];
    expect(electrodes.map((e) => e.index)).toEqual([...Array(21).keys()]);
    expect(electrodes[0]?.magnitude).toBeGreaterThan(1_000_000);

    expect(json(await s.app.inject({ method: 'POST', url: '/system/peripheral/electrodes/stream' }))).toEqual(
      { success: true, streaming: true },
    );
    const busy = await s.app.inject({ method: 'POST', url: '/system/peripheral/electrodes/impedance' });
    expect(busy.statusCode).toBe(409);
    expect(
      json(await s.app.inject({ method: 'POST', url: '/system/peripheral/electrodes/stop' })),
    ).toMatchObject({ success: true, streaming: false });

    const leds = json(await s.app.inject({ method: 'GET', url: '/system/peripheral/leds' }));
    expect(leds.leds).toEqual([
      { id: 0, state: { on: false, color: '#000000', blinkRate: 0 } },
      { id: 1, state: { on: true, color: '#00FF00', blinkRate: 0 } },
    ]);
    const set = json(
      await s.app.inject({
        method: 'PUT',
        url: '/system/peripheral/leds/0',
        payload: { on: true, color: '#123456', blinkRate: 2 },
      }),
    );
    expect(set).toEqual({ success: true, id: 0, state: { on: true, color: '#123456', blinkRate: 2 } });
    const badLed = await s.app.inject({
      method: 'PUT',
      url: '/system/peripheral/leds/5',
      payload: { on: true },
    });
    expect(badLed.statusCode).toBe(422);
    const badRate = await s.app.inject({
      method: 'PUT',
      url: '/system/peripheral/leds/0',
      payload: { blinkRate: 99 },
    });
    expect(errorOf(badRate).details?.path).toBe('/blinkRate');

    const motors = json(await s.app.inject({ method: 'GET', url: '/system/peripheral/motors' }));
    expect((motors.motors as unknown[]).length).toBe(21);
    const move = json(
      await s.app.inject({
        method: 'POST',
        url: '/system/peripheral/motors/move',
        payload: { motors: [{ id: 20, position: 10 }] },
      }),
    );
    // The move answers at once, mid-way: the motor retracts from 40 towards 10 while the device
    // clock runs 10× faster than the test, so how far it got depends on scheduling. What holds
    // whatever the timing: it is between start and target, moving until it arrives
    // (at the arrival instant its end timer may not have fired yet).
    const [moved] = move.motors as { id: number; position: number; state: number }[];
    expect(moved?.id).toBe(20);
    expect(moved?.position).toBeGreaterThanOrEqual(10);
    expect(moved?.position).toBeLessThanOrEqual(40);
    if (moved && moved.position > 10) expect(moved.state).toBe(1);
    else expect([0, 1]).toContain(moved?.state);
    const badMove = await s.app.inject({
      method: 'POST',
      url: '/system/peripheral/motors/move',
      payload: { motors: [{ id: 21, position: 45 }] },
    });
    expect(errorOf(badMove).details?.path).toBe('/motors/0/id');

    const battery = json(await s.app.inject({ method: 'GET', url: '/system/battery' }));
    expect(battery).toMatchObject({
      success: true,
      charging: expect.any(Boolean),
      health: 'good',
      temperature: expect.any(Number),
    });
    expect(battery.level).toBeGreaterThan(0);
  });
});

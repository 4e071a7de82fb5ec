import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scaledClock } from '../../support/scaled-clock.js';
import { errorOf, json, type SystemApp, systemApp } from '../system/support.js';

type Results = Record<
  string,
  { before: number; after: number; attempts: number; reached: boolean; position: number; reason: string }
>;

describe('closed-loop electrode paths', () => {
  let s: SystemApp;
  beforeEach(async () => {
    // 40 steps: just above the scalp (contact lies at 50..75), so the approach is short.
    s = await systemApp({ device: { initialMotorPosition: 40, clock: scaledClock(10) } });
  });
  afterEach(async () => {
    await s.close();
  });

  it('optimizes channels under the target with the aggressive strategy', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/electrodes/impedance/optimize?wait=true',
      payload: {
        channels: ['O1', 'cz'],
        priorityChannels: ['Fp1'],
        targetImpedance: 20,
        maxAttempts: 10,
        strategy: 'aggressive',
      },
    });
    expect(res.statusCode).toBe(200);
    const body = json(res);
    expect(body).toMatchObject({ success: true, strategy: 'aggressive', targetImpedance: 20 });
    const results = body.results as Results;
    expect(Object.keys(results).sort()).toEqual(['Cz', 'Fp1', 'O1']);
    // The whole answer in the messages: each electrode's positions, attempts and reason say why.
    const answer = JSON.stringify(results);
    for (const [name, r] of Object.entries(results)) {
      expect(r.before, `${name}: ${answer}`).toBeGreaterThan(1000);
      expect(r.reached, `${name}: ${answer}`).toBe(true);
      expect(r.after, `${name}: ${answer}`).toBeLessThan(20);
      expect(r.reason, `${name}: ${answer}`).toBe('target_reached');
    }
    // The motors really moved there.
    const positions = s.device.motors.positions(['O1', 'CZ', 'FP1']);
    for (const position of Object.values(positions)) expect(position).toBeGreaterThan(50);
  }, 30_000);

  it('reports attempts spent when the target is out of reach', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/electrodes/impedance/optimize?wait=true',
      payload: { channels: 'O2', targetImpedance: 0.5, maxAttempts: 2, strategy: 'aggressive' },
    });
    const r = (json(res).results as Results).O2;
    expect(r).toMatchObject({ reached: false, attempts: 2, reason: 'attempts_spent' });
  }, 30_000);

  it('refuses bad optimize requests, and runs nothing during acquisition', async () => {
    const strategy = await s.app.inject({
      method: 'POST',
      url: '/electrodes/impedance/optimize?wait=true',
      payload: { strategy: 'brutal' },
    });
    expect(strategy.statusCode).toBe(422);
    expect(errorOf(strategy).details?.path).toBe('/strategy');
    const target = await s.app.inject({
      method: 'POST',
      url: '/electrodes/impedance/optimize?wait=true',
      payload: { targetImpedance: -1 },
    });
    expect(errorOf(target).details?.path).toBe('/targetImpedance');
    const channel = await s.app.inject({
      method: 'POST',
      url: '/electrodes/impedance/optimize?wait=true',
      payload: { channels: ['Fp3'] },
    });
    expect(errorOf(channel)).toMatchObject({ code: 'validation_failed', details: { path: '/channels/0' } });
    await s.app.inject({ method: 'POST', url: '/system/sensors/eeg/stream' });
    const busy = await s.app.inject({
      method: 'POST',
      url: '/electrodes/impedance/optimize?wait=true',
      payload: {},
    });
    expect(busy.statusCode).toBe(409);
    expect(s.device.status().motors.moving).toEqual([]);
  });

  it('refuses a second operation on electrodes a running one holds', async () => {
    const first = await s.app.inject({
      method: 'POST',
      url: '/electrodes/prepare',
      payload: { electrodes: ['T3'], action: 'seat' },
    });
    expect(first.statusCode).toBe(202);
    const second = await s.app.inject({
      method: 'POST',
      url: '/electrodes/adjust?wait=true',
      payload: { electrodes: ['T3'], action: 'increase_pressure' },
    });
    expect(second.statusCode).toBe(409);
    expect(errorOf(second).code).toBe('device_busy');
    expect(errorOf(second).message).toContain('DELETE /system/jobs/');
    const job = (json(first).job as { id: string }).id;
    const cancelled = json(await s.app.inject({ method: 'DELETE', url: `/system/jobs/${job}` }));
    expect((cancelled.job as { status: string }).status).toBe('cancelled');
  }, 30_000);

  it('seats, retracts and releases electrodes', async () => {
    const seat = json(
      await s.app.inject({
        method: 'POST',
        url: '/electrodes/prepare?wait=true',
        payload: { electrodes: 'P3,P4', action: 'seat', amount: 8 },
      }),
    );
    const seated = seat.electrodes as Record<string, { position: number; state: number; impedance: number }>;
    expect(Object.keys(seated)).toEqual(['P3', 'P4']);
    // The whole answer in the message: positions and motor states say why a value is off.
    for (const e of Object.values(seated)) expect(e.impedance, JSON.stringify(seat)).toBeLessThan(200);
    const retract = json(
      await s.app.inject({
        method: 'POST',
        url: '/electrodes/prepare?wait=true',
        payload: { electrodes: ['P3'], action: 'retract', amount: 10 },
      }),
    );
    expect((retract.electrodes as Record<string, { position: number }>).P3?.position).toBeCloseTo(
      (seated.P3?.position ?? 0) - 10,
      1,
    );
    const release = json(
      await s.app.inject({
        method: 'POST',
        url: '/electrodes/prepare?wait=true',
        payload: { electrodes: ['F7'], action: 'release', amount: 5 },
      }),
    );
    expect(release.electrodes).toEqual({ F7: { position: 45, state: 0 } });
    const bad = await s.app.inject({
      method: 'POST',
      url: '/electrodes/prepare?wait=true',
      payload: { electrodes: ['F7'], action: 'wiggle' },
    });
    expect(bad.statusCode).toBe(422);
  }, 30_000);

  it('adjusts: increase pressure reaches the target, decrease pressure keeps it', async () => {
    const up = json(
      await s.app.inject({
        method: 'POST',
        url: '/electrodes/adjust?wait=true',
        payload: {
          electrodes: ['C3'],
          action: 'increase_pressure',
          target: { impedance: 25 },
          strategy: 'aggressive',
        },
      }),
    );
    const pressed = (up.results as Results).C3;
    expect(pressed?.reached).toBe(true);
    const down = json(
      await s.app.inject({
        method: 'POST',
        url: '/electrodes/adjust?wait=true',
        payload: {
          electrodes: ['C3'],
          action: 'decrease_pressure',
          target: { impedance: 60 },
          strategy: 'aggressive',
          maxAttempts: 3,
        },
      }),
    );
    const relieved = (down.results as Results).C3;
    expect(relieved?.after).toBeLessThanOrEqual(60);
    expect(relieved?.position).toBeLessThan(pressed?.position ?? 0);
  }, 30_000);

  it('applies a pressure profile with a customization', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/motors/apply-pressure?wait=true',
      payload: { profile: 'light', electrodes: ['O1'], customization: { o2: 6 } },
    });
    expect(res.statusCode).toBe(200);
    const results = json(res).results as Record<
      string,
      { pressedSteps: number; contact: boolean; impedance: number }
    >;
    expect(results.O1).toMatchObject({ pressedSteps: 3, contact: true });
    expect(results.O2).toMatchObject({ pressedSteps: 6, contact: true });
    const bad = await s.app.inject({
      method: 'POST',
      url: '/motors/apply-pressure?wait=true',
      payload: { profile: 'light', customization: { O1: 40 } },
    });
    expect(bad.statusCode).toBe(422);
    expect(errorOf(bad).details?.path).toBe('/customization/O1');
  }, 30_000);

  it('drives one motor with /motors/control', async () => {
    const move = json(
      await s.app.inject({
        method: 'POST',
        url: '/motors/control',
        payload: { motor: 'fz', action: 'move', parameters: { position: 46, speed: 20 } },
      }),
    );
    expect(move).toMatchObject({
      success: true,
      motor: 'Fz',
      action: 'move',
      targetPosition: 46,
      state: 1,
      speed: 20,
    });
    await s.device.motors.waitUntilComplete(['FZ']);
    expect(s.device.motors.positions(['FZ']).FZ).toBe(46);
    const brake = json(
      await s.app.inject({
        method: 'POST',
        url: '/motors/control',
        payload: { motor: 'Fz', action: 'brake' },
      }),
    );
    expect(brake.state).toBe(2);
    const home = json(
      await s.app.inject({
        method: 'POST',
        url: '/motors/control',
        payload: { motor: 'Fz', action: 'home' },
      }),
    );
    expect(home).toMatchObject({ targetPosition: 0, state: 1 });
    const noPosition = await s.app.inject({
      method: 'POST',
      url: '/motors/control',
      payload: { motor: 'Fz', action: 'move' },
    });
    expect(errorOf(noPosition).details?.path).toBe('/parameters/position');
    const tooFast = await s.app.inject({
      method: 'POST',
      url: '/motors/control',
      payload: { motor: 'Fz', action: 'move', parameters: { position: 1, speed: 50 } },
    });
    expect(tooFast.statusCode).toBe(422);
    const unknown = await s.app.inject({
      method: 'POST',
      url: '/motors/control',
      payload: { motor: 'A1', action: 'stop' },
    });
    expect(errorOf(unknown).details?.path).toBe('/motor');
  });

  it('gives preparation guidance from a given map or the latest measurement', async () => {
    const given = json(
      await s.app.inject({
        method: 'GET',
        url: `/electrodes/preparation-guidance?electrodes=Fp1,Fp2,Cz&currentImpedance=${encodeURIComponent('{"fp1":3,"Fp2":35}')}`,
      }),
    );
    const guidance = given.guidance as Record<
      string,
      { impedance: number | null; level: string | null; instruction: string }
    >;
    expect(guidance.Fp1).toMatchObject({ impedance: 3, level: 'excellent' });
    expect(guidance.Fp2?.level).toBe('poor');
    expect(guidance.Fp2?.instruction).toContain('saline');
    expect(guidance.Cz).toMatchObject({ impedance: null, level: null });
    await s.app.inject({ method: 'GET', url: '/system/sensors/impedance?channels=Cz' });
    const latest = json(
      await s.app.inject({ method: 'GET', url: '/electrodes/preparation-guidance?electrodes=Cz' }),
    );
    expect((latest.guidance as typeof guidance).Cz?.level).toBe('very_poor');
    const bad = await s.app.inject({
      method: 'GET',
      url: '/electrodes/preparation-guidance?currentImpedance=%7Bnope',
    });
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad).details?.path).toBe('/querystring/currentImpedance');
  });

  it('diagnoses an electrode: basic, then full with signal figures', async () => {
    const basic = json(
      await s.app.inject({ method: 'POST', url: '/electrodes/diagnose', payload: { electrode: 'o1' } }),
    );
    expect(basic).toMatchObject({
      success: true,
      electrode: 'O1',
      motor: { position: 40, state: 0 },
      noiseRms: null,
      verdict: 'no_contact',
    });
    expect(basic.impedance).toBeGreaterThan(1000);
    const full = json(
      await s.app.inject({
        method: 'POST',
        url: '/electrodes/diagnose',
        payload: { electrode: 'O1', diagnosticLevel: 'full' },
      }),
    );
    expect(full.noiseRms).toBeGreaterThan(0);
    expect(full.lineNoise).toBeGreaterThan(0);
    expect(s.device.eeg.state().streaming).toBe(false);
    const bad = await s.app.inject({
      method: 'POST',
      url: '/electrodes/diagnose',
      payload: { electrode: 'O9' },
    });
    expect(errorOf(bad).details?.path).toBe('/electrode');
  });
});

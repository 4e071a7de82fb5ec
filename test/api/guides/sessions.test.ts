import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ManualClock } from '../../../src/device/replay/manual-clock.js';
import { errorOf, json, type SystemApp, systemApp } from '../system/support.js';
import { eventually } from '../../support/wait.js';

describe('impedance sessions (guide paths)', () => {
  let s: SystemApp;
  beforeEach(async () => {
    s = await systemApp();
  });
  afterEach(async () => {
    await s.close();
  });

  it('runs a single check on named channels and answers kΩ with mixed-case names', async () => {
    const start = await s.app.inject({
      method: 'POST',
      url: '/electrodes/impedance/start',
      payload: { channels: ['FP1', 'cz'] },
    });
    expect(start.statusCode).toBe(200);
    const started = json(start);
    expect(started).toMatchObject({
      success: true,
      status: 'running',
      mode: 'single',
      channels: ['Cz', 'Fp1'],
    });
    const read = json(
      await s.app.inject({
        method: 'GET',
        url: `/electrodes/impedance?sessionId=${String(started.sessionId)}`,
      }),
    );
    expect(read).toMatchObject({ sessionId: started.sessionId, status: 'completed' });
    const values = read.values as Record<string, number>;
    expect(Object.keys(values).sort()).toEqual(['Cz', 'Fp1']);
    // Retracted electrodes: MΩ, i.e. more than 1000 kΩ.
    expect(values.Fp1).toBeGreaterThan(1000);
    expect(values.Fp1).toBeLessThan(100_000);
    expect(typeof read.timestamp).toBe('number');
  });

  it('runs a continuous session until stopped, and streams readings on the live socket', async () => {
    const base = await s.listen();
    const socket = new WebSocket(`${base}/electrodes/impedance/live`);
    await new Promise((resolve) => socket.once('open', resolve));
    const messages: { timestamp: number; values: Record<string, number> }[] = [];
    socket.on('message', (data: Buffer) =>
      messages.push(JSON.parse(data.toString()) as (typeof messages)[number]),
    );
    const started = json(
      await s.app.inject({
        method: 'POST',
        url: '/electrodes/impedance/start',
        payload: {
          continuous: true,
          channels: 'O1,O2',
          updateInterval: 100,
          testSignal: { frequency: 31.2, amplitude: 6 },
        },
      }),
    );
    expect(started.mode).toBe('continuous');
    await eventually(() => messages.length >= 3, 20_000, 'three live readings');
    const stop = json(
      await s.app.inject({
        method: 'POST',
        url: '/electrodes/impedance/stop',
        payload: { sessionId: started.sessionId },
      }),
    );
    expect(stop).toEqual({ success: true, status: 'stopped', sessionId: started.sessionId });
    socket.close();
    expect(messages.length).toBeGreaterThanOrEqual(3);
    expect(Object.keys(messages[0]?.values ?? {}).sort()).toEqual(['O1', 'O2']);
    const read = json(await s.app.inject({ method: 'GET', url: '/electrodes/impedance' }));
    expect(read.status).toBe('stopped');
  });

  it('answers 409 device_busy while EEG is acquired', async () => {
    await s.app.inject({ method: 'POST', url: '/system/sensors/eeg/stream' });
    const res = await s.app.inject({ method: 'POST', url: '/electrodes/impedance/start', payload: {} });
    expect(res.statusCode).toBe(409);
    expect(errorOf(res).code).toBe('device_busy');
  });

  it('answers session_not_found for unknown or missing sessions', async () => {
    const none = await s.app.inject({ method: 'GET', url: '/electrodes/impedance' });
    expect(none.statusCode).toBe(404);
    expect(errorOf(none).code).toBe('session_not_found');
    const unknown = await s.app.inject({ method: 'GET', url: '/electrodes/impedance?sessionId=nope' });
    expect(errorOf(unknown)).toMatchObject({
      code: 'session_not_found',
      details: { path: '/querystring/sessionId' },
    });
    const stop = await s.app.inject({
      method: 'POST',
      url: '/electrodes/impedance/stop',
      payload: { sessionId: 'nope' },
    });
    expect(stop.statusCode).toBe(404);
  });

  it('refuses bad starts with pointers', async () => {
    const cases: [object, number, string][] = [
      [{ updateInterval: 50 }, 422, '/updateInterval'],
      [{ channels: ['Fp1', 'Xx'] }, 422, '/channels/1'],
      [{ continuous: 'yes' }, 400, '/continuous'],
      [{ testSignal: { frequency: -1, amplitude: 1 } }, 422, '/testSignal/frequency'],
      [{ colour: 1 }, 400, '/colour'],
    ];
    for (const [payload, status, pointer] of cases) {
      const res = await s.app.inject({ method: 'POST', url: '/electrodes/impedance/start', payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(status);
      expect(errorOf(res).details?.path, JSON.stringify(payload)).toBe(pointer);
    }
    const unknown = await s.app.inject({
      method: 'POST',
      url: '/electrodes/impedance/start',
      payload: { channels: ['Q1'] },
    });
    expect(errorOf(unknown).message).toContain('Fp1');
  });

  it('frees the device when stopped: EEG acquisition asked for right after the stop starts', async () => {
    const started = json(
      await s.app.inject({
        method: 'POST',
        url: '/electrodes/impedance/start',
        payload: { continuous: true, updateInterval: 100 },
      }),
    );
    // The session's first measurement is in flight from the start.
    expect(s.device.impedance.measuring()).toBe(true);
    const stop = await s.app.inject({
      method: 'POST',
      url: '/electrodes/impedance/stop',
      payload: { sessionId: started.sessionId },
    });
    expect(json(stop)).toMatchObject({ status: 'stopped' });
    const eeg = await s.app.inject({ method: 'POST', url: '/system/sensors/eeg/stream' });
    expect(eeg.statusCode, eeg.body).toBe(200);
    expect(json(eeg)).toMatchObject({ success: true, streaming: true });
  });

  it('frees the device when a new session replaces the running one', async () => {
    await s.app.inject({
      method: 'POST',
      url: '/electrodes/impedance/start',
      payload: { continuous: true, updateInterval: 100 },
    });
    const second = json(
      await s.app.inject({ method: 'POST', url: '/electrodes/impedance/start', payload: { channels: 'O1' } }),
    );
    const read = json(
      await s.app.inject({
        method: 'GET',
        url: `/electrodes/impedance?sessionId=${String(second.sessionId)}`,
      }),
    );
    expect(read.status).toBe('completed');
    expect(s.device.impedance.measuring()).toBe(false);
  });
});

describe('impedance session pacing on the device clock', () => {
  it('delivers a continuous session asked for updateInterval 200 every 200 ms, for all 21 electrodes', async () => {
    const clock = new ManualClock();
    const s = await systemApp({ device: { clock } });
    try {
      const started = json(
        await s.app.inject({
          method: 'POST',
          url: '/electrodes/impedance/start',
          payload: { continuous: true, channels: 'all', updateInterval: 200 },
        }),
      );
      expect(started.updateInterval).toBe(200);
      // Two seconds of device time, a millisecond at a time, letting the session's promises run.
      for (let ms = 0; ms < 2000; ms++) {
        clock.advance(1);
        await new Promise((resolve) => setImmediate(resolve));
      }
      await s.app.inject({ method: 'POST', url: '/electrodes/impedance/stop', payload: {} });
      const history = json(
        await s.app.inject({
          method: 'GET',
          url: `/electrodes/impedance/history?sessionId=${String(started.sessionId)}&timeRange=15m`,
        }),
      );
      const timeline = history.timeline as { timestamp: number; values: Record<string, number> }[];
      // Readings at 80, 280, ..., 1880 ms: one per 200 ms slot.
      expect(timeline).toHaveLength(10);
      expect(Object.keys(timeline[0]?.values ?? {})).toHaveLength(21);
      const spacing = timeline.slice(1).map((r, i) => r.timestamp - (timeline[i]?.timestamp ?? 0));
      expect(spacing).toEqual(Array.from({ length: 9 }, () => 200));
    } finally {
      await s.close();
    }
  });
});

/**
 * `device_busy` names what holds the device (docs/api.md §Errors): the job that holds a motor,
 * the client or the streams that hold EEG acquisition, the impedance session that measures.
 */
import { rmSync } from 'node:fs';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULTS } from '../../../src/service/config.js';
import { type RunningServer, startServer } from '../../../src/service/server.js';
import { advance, fakeTimeHeadset } from '../../support/device.js';
import { scaledClock } from '../../support/scaled-clock.js';
import { errorOf, json, type SystemApp, systemApp } from '../system/support.js';
import { eventually } from '../../support/wait.js';
import { STREAM_HOST } from '../../support/stream-host.js';
import { scratchDir } from '../../support/scratch.js';

describe('on the /system and guide paths', () => {
  let s: SystemApp;
  beforeEach(async () => {
    s = await systemApp({ device: { initialMotorPosition: 40, clock: scaledClock(10) } });
  });
  afterEach(async () => {
    await s.close();
  });

  it('a motor held by a job: the operation and the job id, to wait on or cancel', async () => {
    const first = await s.app.inject({
      method: 'POST',
      url: '/electrodes/prepare',
      payload: { electrodes: ['T3'], action: 'seat' },
    });
    expect(first.statusCode).toBe(202);
    const job = (json(first).job as { id: string }).id;
    for (const second of [
      await s.app.inject({
        method: 'POST',
        url: '/electrodes/adjust',
        payload: { electrodes: ['T3'], action: 'increase_pressure' },
      }),
      await s.app.inject({
        method: 'POST',
        url: '/motors/control',
        payload: { motor: 'T3', action: 'move', parameters: { position: 10 } },
      }),
    ]) {
      expect(second.statusCode).toBe(409);
      const error = errorOf(second);
      expect(error.code).toBe('device_busy');
      expect(error.message).toContain(`T3 is held by a running prepare seat (job ${job})`);
      expect(error.message).toContain(`DELETE /system/jobs/${job}`);
      expect(error.details?.heldBy).toEqual({ operation: 'prepare seat', jobId: job });
    }
    await s.app.inject({ method: 'DELETE', url: `/system/jobs/${job}` });
  }, 30_000);

  it('impedance while a client acquires EEG: names the client and how it stops', async () => {
    expect((await s.app.inject({ method: 'POST', url: '/system/sensors/eeg/stream' })).statusCode).toBe(200);
    for (const url of ['/system/sensors/impedance', '/electrodes/impedance/start']) {
      const res = await s.app.inject({ method: url.startsWith('/system') ? 'GET' : 'POST', url });
      expect(res.statusCode).toBe(409);
      const error = errorOf(res);
      expect(error.code).toBe('device_busy');
      expect(error.message).toContain('held by a client that started it (POST /system/sensors/eeg/stream');
      expect(error.message).toContain('and must stop before');
      expect(error.message).toContain('DELETE /system/sensors/eeg/stream stops it');
      expect(error.details?.heldBy).toEqual({ activity: 'eeg_acquisition', owners: ['client'] });
    }
  });
});

describe('on the device', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('acquisition during a measurement names who measures', async () => {
    vi.useFakeTimers();
    const headset = fakeTimeHeadset();
    const measuring = headset.impedance.measure(undefined, { holder: 'impedance session abc' });
    await expect(headset.eeg.start('client')).rejects.toMatchObject({
      code: 'device_busy',
      message: expect.stringContaining(
        'An impedance measurement is running (impedance session abc)',
      ) as string,
      details: { heldBy: { activity: 'impedance_measurement', holder: 'impedance session abc' } },
    });
    await advance(200);
    await measuring;
    await headset.close();
  });
});

describe('on the service', () => {
  let server: RunningServer | undefined;
  const dataDir = scratchDir('headsetd-busy');
  afterEach(async () => {
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('impedance while a stream reads the EEG: names that stream', { timeout: 30_000 }, async () => {
    server = await startServer({
      workerEntry: STREAM_HOST,
      settings: { ...DEFAULTS, port: 0, dataDir },
      logger: pino({ level: 'silent' }),
    });
    const app = server.app;
    const id = '5b0e8c1a-7d2f-4e3a-9b4c-1d2e3f4a5b6c';
    const created = await app.inject({
      method: 'POST',
      url: '/stream/streams',
      payload: {
        id,
        nodes: [
          { id: 'eeg', executable: 'eeg-source', config: { channels: ['O1'] } },
          { id: 'log', executable: 'logger', config: {} },
        ],
        pipes: [{ id: 'p', source: 'eeg', destination: 'log' }],
      },
    });
    expect(created.statusCode, created.body).toBe(200);
    const device = server.device;
    await app.inject({ method: 'POST', url: `/stream/streams/${id}/signal`, payload: { signal: 'start' } });
    await eventually(() => device.eeg.state().streaming, 20_000, 'the stream to start acquisition');
    const res = await app.inject({ method: 'GET', url: '/system/sensors/impedance' });
    expect(res.statusCode).toBe(409);
    const error = errorOf(res);
    expect(error.message).toContain('held by streams that read it through an eeg-source node');
    expect(error.message).toContain(`The streams reading the EEG now: ${id}`);
    expect(error.details?.heldBy).toEqual({
      activity: 'eeg_acquisition',
      owners: ['streams'],
      streams: [id],
    });
  });
});

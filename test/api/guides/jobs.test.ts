import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scaledClock } from '../../support/scaled-clock.js';
import WebSocket from 'ws';
import type { JobRecord } from '../../../src/platform/jobs/jobs.js';
import { errorOf, json, type SystemApp, systemApp } from '../system/support.js';
import { eventually } from '../../support/wait.js';

type Progress = {
  total: number;
  completed: number;
  electrodes: Record<
    string,
    { done: boolean; position: number; state: number; impedance: number | null; reason?: string }
  >;
};
type Job = JobRecord<Progress, Record<string, unknown>>;

describe('long electrode operations as jobs', () => {
  let s: SystemApp;
  beforeEach(async () => {
    // 40 steps: just above the scalp (contact lies at 50..75).
    s = await systemApp({ device: { initialMotorPosition: 40, clock: scaledClock(10) } });
  });
  afterEach(async () => {
    await s.close();
  });

  async function readJob(id: string): Promise<Job> {
    const res = await s.app.inject({ method: 'GET', url: `/system/jobs/${id}` });
    expect(res.statusCode, res.body).toBe(200);
    return json(res).job as Job;
  }

  function finished(id: string): Promise<Job> {
    return eventually(
      async () => {
        const job = await readJob(id);
        return job.status === 'running' ? undefined : job;
      },
      20_000,
      `job ${id} to end`,
    );
  }

  it('answers POST /electrodes/prepare at once (202, Location, running job) instead of holding the request', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/electrodes/prepare',
      payload: { electrodes: ['P3', 'P4'], action: 'seat', amount: 8 },
    });
    expect(res.statusCode, res.body).toBe(202);
    const job = json(res).job as Job;
    expect(res.headers.location).toBe(`/system/jobs/${job.id}`);
    // The answer came while the seating still runs: the job is running and nothing is done yet.
    expect(job).toMatchObject({
      operation: 'electrodes.prepare',
      status: 'running',
      result: null,
      error: null,
    });
    expect(job.progress).toMatchObject({ total: 2, completed: 0 });
    expect(Object.keys(job.progress.electrodes)).toEqual(['P3', 'P4']);
    expect(s.device.impedance.measuring() || s.device.status().motors.moving.length > 0).toBe(true);

    const done = await finished(job.id);
    expect(done.status).toBe('completed');
    expect(done.finishedAt).not.toBeNull();
    const result = done.result as { action: string; electrodes: Record<string, { impedance: number }> };
    expect(result.action).toBe('seat');
    for (const e of Object.values(result.electrodes)) expect(e.impedance).toBeLessThan(200);
    expect(done.progress.completed).toBe(2);
    expect(done.progress.electrodes.P3).toMatchObject({ done: true, reason: 'target_reached' });
    // The electrodes are free again.
    const again = await s.app.inject({
      method: 'POST',
      url: '/electrodes/prepare?wait=true',
      payload: { electrodes: ['P3'], action: 'retract', amount: 5 },
    });
    expect(again.statusCode).toBe(200);
  }, 30_000);

  it('answers POST /electrodes/impedance/optimize at once and reports progress per electrode on /system/events', async () => {
    const base = await s.listen();
    const socket = new WebSocket(`${base}/system/events`);
    await new Promise((resolve) => socket.once('open', resolve));
    const events: { type: string; job?: Job }[] = [];
    socket.on('message', (data: Buffer) =>
      events.push(JSON.parse(data.toString()) as (typeof events)[number]),
    );
    const res = await s.app.inject({
      method: 'POST',
      url: '/electrodes/impedance/optimize',
      payload: { channels: ['O1', 'Cz'], targetImpedance: 20, strategy: 'aggressive' },
    });
    expect(res.statusCode, res.body).toBe(202);
    const id = (json(res).job as Job).id;
    const done = await finished(id);
    expect(done.status).toBe('completed');
    expect(done.result).toMatchObject({ strategy: 'aggressive', targetImpedance: 20 });
    const results = (done.result as { results: Record<string, { reached: boolean }> }).results;
    expect(results.O1?.reached).toBe(true);
    const mine = await eventually(
      () => {
        const list = events.filter((e) => e.type === 'job' && e.job?.id === id).map((e) => e.job as Job);
        return list.some((j) => j.status === 'completed') ? list : undefined;
      },
      20_000,
      'the job events',
    );
    socket.close();
    expect(mine[0]?.status).toBe('running');
    // Rounds in between: electrodes measured, moving toward the scalp, some still in the loop.
    const rounds = mine.filter((j) => j.status === 'running' && j.progress.electrodes.O1?.impedance !== null);
    expect(rounds.length).toBeGreaterThan(1);
    const positions = rounds.map((j) => j.progress.electrodes.O1?.position ?? 0);
    expect(Math.max(...positions)).toBeGreaterThan(positions[0] ?? 0);
    expect(rounds.some((j) => j.progress.completed < 2)).toBe(true);
    expect(mine.at(-1)?.progress.completed).toBe(2);
  }, 30_000);

  it('cancels a running job with DELETE: its motors stop where they are and it reads cancelled', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/electrodes/prepare',
      payload: { electrodes: ['O1', 'O2'], action: 'release', amount: 60 },
    });
    const id = (json(res).job as Job).id;
    await eventually(() => s.device.status().motors.moving.includes('O1'), 20_000, 'O1 to move');
    const cancel = await s.app.inject({ method: 'DELETE', url: `/system/jobs/${id}` });
    expect(cancel.statusCode).toBe(200);
    const job = json(cancel).job as Job;
    expect(job).toMatchObject({ status: 'cancelled', result: null, error: { code: 'operation_cancelled' } });
    // Stopped part way, not at the end of the move, and held no longer.
    expect(s.device.status().motors.moving).toEqual([]);
    const position = s.device.motors.positions(['O1']).O1 ?? 0;
    expect(position).toBeGreaterThan(40);
    expect(position).toBeLessThan(100);
    expect((await readJob(id)).status).toBe('cancelled');
    const again = await s.app.inject({
      method: 'POST',
      url: '/electrodes/prepare?wait=true',
      payload: { electrodes: ['O1'], action: 'retract', amount: 5 },
    });
    expect(again.statusCode, again.body).toBe(200);
    // DELETE again answers the job as it is.
    const twice = await s.app.inject({ method: 'DELETE', url: `/system/jobs/${id}` });
    expect((json(twice).job as Job).status).toBe('cancelled');
  }, 30_000);

  it('says why a job failed: EEG acquisition started during the optimization', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/electrodes/impedance/optimize',
      payload: { channels: ['O1'], strategy: 'gentle' },
    });
    const id = (json(res).job as Job).id;
    // Between measurements (while the motor moves) the device may start acquiring.
    await eventually(
      async () => {
        if (s.device.impedance.measuring()) return undefined;
        const eeg = await s.app.inject({ method: 'POST', url: '/system/sensors/eeg/stream' });
        return eeg.statusCode === 200;
      },
      20_000,
      'acquisition to start',
    );
    const job = await finished(id);
    expect(job.status).toBe('failed');
    expect(job.error).toMatchObject({
      code: 'device_busy',
      message: expect.stringContaining('EEG acquisition'),
    });
    expect(s.device.status().motors.moving).toEqual([]);
  }, 30_000);

  it('keeps the synchronous form with ?wait=true, and answers 409 operation_cancelled when the job is cancelled', async () => {
    const sync = await s.app.inject({
      method: 'POST',
      url: '/electrodes/prepare?wait=true',
      payload: { electrodes: ['F7'], action: 'release', amount: 5 },
    });
    expect(sync.statusCode).toBe(200);
    expect(json(sync)).toEqual({
      success: true,
      action: 'release',
      electrodes: { F7: { position: 45, state: 0 } },
    });
    const waiting = s.app.inject({
      method: 'POST',
      url: '/motors/apply-pressure?wait=true',
      payload: { profile: 'light', electrodes: ['T4'] },
    });
    const running = await eventually(
      async () => {
        const list = json(await s.app.inject({ method: 'GET', url: '/system/jobs' })).jobs as Job[];
        return list.find((j) => j.status === 'running');
      },
      20_000,
      'the apply-pressure job',
    );
    expect(running.operation).toBe('motors.apply-pressure');
    await s.app.inject({ method: 'DELETE', url: `/system/jobs/${running.id}` });
    const answer = await waiting;
    expect(answer.statusCode).toBe(409);
    expect(errorOf(answer).code).toBe('operation_cancelled');
    const bad = await s.app.inject({
      method: 'POST',
      url: '/electrodes/prepare?wait=maybe',
      payload: { electrodes: ['F7'], action: 'retract' },
    });
    expect(bad.statusCode).toBe(422);
    expect(errorOf(bad).details?.path).toBe('/querystring/wait');
  }, 30_000);

  it('answers 404 job_not_found for an unknown job', async () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const res = await s.app.inject({ method, url: '/system/jobs/nope' });
      expect(res.statusCode).toBe(404);
      expect(errorOf(res)).toMatchObject({ code: 'job_not_found', details: { path: '/params/id' } });
    }
  });

  it('documents the job routes and the 202 answers with their Location in OpenAPI', async () => {
    const doc = json(await s.app.inject({ method: 'GET', url: '/openapi.json' })) as {
      paths: Record<string, Record<string, { responses: Record<string, { headers?: object }> }>>;
    };
    expect(Object.keys(doc.paths['/system/jobs/{id}'] ?? {}).sort()).toEqual(['delete', 'get']);
    expect(doc.paths['/system/jobs']?.get).toBeDefined();
    for (const path of [
      '/electrodes/prepare',
      '/electrodes/impedance/optimize',
      '/electrodes/adjust',
      '/motors/apply-pressure',
    ]) {
      expect(doc.paths[path]?.post?.responses['202']?.headers, path).toHaveProperty('Location');
    }
  });
});

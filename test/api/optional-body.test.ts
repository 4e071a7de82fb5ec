/**
 * A POST whose body fields are all optional may be sent without any body (`curl -X POST url`);
 * a route that needs fields answers a missing body with a sentence, not "got a undefined".
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, json, type SystemApp, systemApp } from './system/support.js';

describe('requests without a body', () => {
  let s: SystemApp;
  beforeEach(async () => {
    s = await systemApp();
  });
  afterEach(async () => {
    await s.close();
  });

  it('stops the latest impedance session on POST /electrodes/impedance/stop with no body at all', async () => {
    const start = await s.app.inject({ method: 'POST', url: '/electrodes/impedance/start' });
    expect(start.statusCode).toBe(200);
    const started = json(start);
    const stop = await s.app.inject({ method: 'POST', url: '/electrodes/impedance/stop' });
    expect(stop.statusCode).toBe(200);
    expect(json(stop)).toMatchObject({ success: true, sessionId: started.sessionId });
  });

  it('answers a missing body that has required fields with 400 and a readable message', async () => {
    const res = await s.app.inject({ method: 'POST', url: '/electrodes/impedance/schedule' });
    expect(res.statusCode).toBe(400);
    const error = errorOf(res);
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain('got nothing');
    expect(error.message).not.toContain('undefined');
  });
});

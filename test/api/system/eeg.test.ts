import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EEG_ELECTRODES } from '../../../src/core/electrodes.js';
import { errorOf, json, type SystemApp, systemApp } from './support.js';
import { eventually } from '../../support/wait.js';

const form = { 'content-type': 'application/x-www-form-urlencoded' };

describe('EEG under /system', () => {
  let s: SystemApp;
  beforeEach(async () => {
    s = await systemApp({ guides: false });
  });
  afterEach(async () => {
    await s.close();
  });

  it('configures channels from repeated and comma query keys, mixed case, and form numbers', async () => {
    const res = await s.app.inject({
      method: 'PUT',
      url: '/system/sensors/eeg?channels=o1&channels=Fp1,cz',
      headers: form,
      payload: 'gain=12&samplingFrequency=500',
    });
    expect(res.statusCode).toBe(200);
    expect(json(res)).toEqual({
      success: true,
      config: { channels: ['O1', 'FP1', 'CZ'], gain: 12, samplingFrequency: 500 },
    });
    expect(s.device.eeg.config().samplingFrequency).toBe(500);
  });

  it('gain or samplingFrequency in the query is refused, saying where it goes (it answered success, changing nothing)', async () => {
    const before = s.device.eeg.config();
    for (const [query, field] of [
      ['gain=8', 'gain'],
      ['channels=O1&samplingFrequency=500', 'samplingFrequency'],
    ] as const) {
      const res = await s.app.inject({ method: 'PUT', url: `/system/sensors/eeg?${query}` });
      expect(res.statusCode, query).toBe(400);
      const error = errorOf(res);
      expect(error.code).toBe('invalid_request');
      expect(error.message).toContain(`${field} is a body field, not a query parameter`);
      expect(error.details).toMatchObject({ path: `/querystring/${field}` });
    }
    expect(s.device.eeg.config()).toEqual(before);
  });

  it('accepts the same fields as JSON', async () => {
    const res = await s.app.inject({
      method: 'PUT',
      url: '/system/sensors/eeg',
      payload: { gain: 8, samplingFrequency: 1000 },
    });
    expect(json(res)).toMatchObject({
      config: { gain: 8, samplingFrequency: 1000, channels: EEG_ELECTRODES },
    });
  });

  it('refuses a gain outside the enum naming the valid values', async () => {
    const res = await s.app.inject({
      method: 'PUT',
      url: '/system/sensors/eeg',
      headers: form,
      payload: 'gain=3',
    });
    expect(res.statusCode).toBe(422);
    const error = errorOf(res);
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('1, 2, 4, 6, 8, 12, 24');
    expect(error.details?.path).toBe('/gain');
  });

  it('refuses a sampling frequency outside the enum and a non-number', async () => {
    const bad = await s.app.inject({
      method: 'PUT',
      url: '/system/sensors/eeg',
      headers: form,
      payload: 'samplingFrequency=300',
    });
    expect(bad.statusCode).toBe(422);
    expect(errorOf(bad).message).toContain('250, 500, 1000, 2000, 4000, 8000, 16000');
    expect(errorOf(bad).details?.path).toBe('/samplingFrequency');
    const text = await s.app.inject({
      method: 'PUT',
      url: '/system/sensors/eeg',
      headers: form,
      payload: 'gain=high',
    });
    expect(text.statusCode).toBe(400);
    expect(errorOf(text)).toMatchObject({ code: 'invalid_request', details: { path: '/gain' } });
  });

  it('refuses unknown electrodes naming the valid ones, and CMS/DRL as channels', async () => {
    const res = await s.app.inject({ method: 'PUT', url: '/system/sensors/eeg?channels=O1,XX' });
    expect(res.statusCode).toBe(422);
    expect(errorOf(res).message).toContain('PZ, O1, O2');
    expect(errorOf(res).details?.path).toBe('/querystring/channels');
    const cms = await s.app.inject({ method: 'PUT', url: '/system/sensors/eeg?channels=CMS' });
    expect(cms.statusCode).toBe(422);
  });

  it('refuses unknown body fields and unaccepted media types', async () => {
    const extra = await s.app.inject({
      method: 'PUT',
      url: '/system/sensors/eeg',
      payload: { gain: 24, colour: 1 },
    });
    expect(extra.statusCode).toBe(400);
    expect(errorOf(extra).details?.path).toBe('/colour');
    const xml = await s.app.inject({
      method: 'PUT',
      url: '/system/sensors/eeg',
      headers: { 'content-type': 'application/xml' },
      payload: '<gain/>',
    });
    expect(xml.statusCode).toBe(415);
  });

  it('starts and stops streaming, and DELETE restores the defaults', async () => {
    await s.app.inject({ method: 'PUT', url: '/system/sensors/eeg', payload: { gain: 4 } });
    const start = await s.app.inject({ method: 'POST', url: '/system/sensors/eeg/stream' });
    expect(json(start)).toMatchObject({ success: true, streaming: true, config: { gain: 4 } });
    await eventually(() => s.device.eeg.state().samples > 0, 20_000, 'the first samples');
    const stop = await s.app.inject({ method: 'DELETE', url: '/system/sensors/eeg/stream' });
    const body = json(stop);
    expect(body).toMatchObject({ success: true, streaming: false });
    expect(body.samples).toBeGreaterThan(0);
    const reset = await s.app.inject({ method: 'DELETE', url: '/system/sensors/eeg' });
    expect(json(reset)).toEqual({
      success: true,
      config: { channels: EEG_ELECTRODES, gain: 24, samplingFrequency: 250 },
    });
    expect(s.device.eeg.state().streaming).toBe(false);
  });

  it('applies a new configuration during acquisition at once', async () => {
    await s.app.inject({ method: 'POST', url: '/system/sensors/eeg/stream' });
    const res = await s.app.inject({
      method: 'PUT',
      url: '/system/sensors/eeg',
      payload: { samplingFrequency: 500 },
    });
    expect(res.statusCode).toBe(200);
    expect(s.device.eeg.state()).toMatchObject({ streaming: true, config: { samplingFrequency: 500 } });
  });
});

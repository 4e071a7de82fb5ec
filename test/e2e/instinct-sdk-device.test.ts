/**
 * The maker's SDK (instinct-py 1.5.1) device, electrode and sensor calls against the real service,
 * made as the SDK makes them and checked against its models. Before: 404s on its paths, and
 * GET /system/healthz answered `battery.voltage` 4.03 and `cpu.temperature` 60.8 where its model
 * takes integers. An electrode changed by the SDK is the EEG configuration of PUT
 * /system/sensors/eeg, and a change made there is what the SDK reads.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SDK_TIMEOUT, sdkCall } from '../support/instinct-client.js';
import {
  DebugPacket,
  DeviceName,
  DeviceState,
  Electrode,
  ElectrodeResponse,
  listProblems,
  modelProblems,
  Sensor,
  SensorResponse,
  SetNameResponse,
} from '../support/instinct-models.js';
import { json, type Service, startService } from '../support/service.js';

let service: Service;
beforeAll(async () => {
  service = await startService();
});
afterAll(async () => {
  await service.stop();
});

const T = SDK_TIMEOUT.default;

/** PUT /system/sensors/eeg as the reference's clients send it (form fields, channels in the query). */
async function referenceEeg(
  query = '',
  form = '',
): Promise<{ channels: string[]; gain: number; samplingFrequency: number }> {
  const answer = await json(`${service.url}/system/sensors/eeg${query}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  expect(answer.status).toBe(200);
  return answer.body.config;
}

describe("the SDK's device calls", () => {
  test('get_state: GET /system/healthz answers integers where the model wants them', async () => {
    const state = await sdkCall(service.url, 'GET', '/system/healthz', { timeoutMs: T });
    expect(modelProblems(DeviceState, state.body)).toEqual([]);
  });

  test('get_name and set_name (form field hostname): the name is the hostname of the reference path', async () => {
    const name = await sdkCall(service.url, 'GET', '/system/system/hostname', { timeoutMs: T });
    expect(modelProblems(DeviceName, name.body)).toEqual([]);
    const set = await sdkCall(service.url, 'PATCH', '/system/system/hostname', {
      form: { hostname: 'lab-headset' },
    });
    expect(modelProblems(SetNameResponse, set.body)).toEqual([]);
    expect((await json(`${service.url}/system/hostname`)).body.hostname).toBe('lab-headset');
    const again = await sdkCall(service.url, 'GET', '/system/system/hostname', { timeoutMs: T });
    expect(again.body).toMatchObject({ name: 'lab-headset' });
    await expect(
      sdkCall(service.url, 'PATCH', '/system/system/hostname', { form: { hostname: 'not a name' } }),
    ).rejects.toThrow(/^422 .*RFC 1123/);
  });

  test('send_debug_command: form fields (lists repeated, an empty list absent) → the packet, as its model reads it', async () => {
    const answer = await sdkCall(service.url, 'POST', '/system/system/debug', {
      form: {
        cmd_resp: 1,
        peripheral: 1,
        peripheral_channels: 0,
        parameter: [0, 3],
        data: [],
        packet_type: 1,
      },
      timeoutMs: T,
    });
    expect(modelProblems(DebugPacket, answer.body)).toEqual([]);
    expect(answer.body).toMatchObject({ cmd_resp: 0, peripheral: 1, parameter: [0, 3] });
  });
});

describe("the SDK's electrodes are the device's EEG configuration", () => {
  test('list and get answer the model for the 21 positions of the SDK', async () => {
    const list = await sdkCall(service.url, 'GET', '/system/electrodes', { timeoutMs: T });
    expect(listProblems(Electrode, list.body)).toEqual([]);
    expect((list.body as { position: string }[]).map((e) => e.position).sort()).toEqual(
      [
        'PZ',
        'O1',
        'O2',
        'P3',
        'P4',
        'T5',
        'T6',
        'C3',
        'C4',
        'T3',
        'T4',
        'CMS',
        'DRL',
        'CZ',
        'F7',
        'F8',
        'F3',
        'F4',
        'FP1',
        'FP2',
        'FZ',
      ].sort(),
    );
    for (const position of ['PZ', 'FP1', 'CMS']) {
      const one = await sdkCall(service.url, 'GET', `/system/electrodes/${position}`, { timeoutMs: T });
      expect(modelProblems(Electrode, one.body)).toEqual([]);
    }
  });

  test('disable_electrode and a gain set by the SDK are what PUT /system/sensors/eeg then reports', async () => {
    await referenceEeg('?channels=O1,O2,PZ', 'gain=24');
    // disable_electrode: GET the electrode, then PATCH it with enabled false.
    const current = (await sdkCall(service.url, 'GET', '/system/electrodes/PZ', { timeoutMs: T }))
      .body as Record<string, unknown>;
    const off = await sdkCall(service.url, 'PATCH', '/system/electrodes/PZ', {
      json: { ...current, enabled: false },
      timeoutMs: T,
    });
    expect(modelProblems(ElectrodeResponse, off.body)).toEqual([]);
    const gain = await sdkCall(service.url, 'PATCH', '/system/electrodes/O1', {
      json: { position: 'O1', enabled: true, gain: 2.0 },
      timeoutMs: T,
    });
    expect(modelProblems(ElectrodeResponse, gain.body)).toEqual([]);
    const config = await referenceEeg();
    expect(config.channels).toEqual(['O1', 'O2']);
    expect(config.gain).toBe(2);
  });

  test('a configuration made by PUT /system/sensors/eeg is what the SDK reads', async () => {
    await referenceEeg('?channels=C3,C4', 'gain=4');
    const list = (await sdkCall(service.url, 'GET', '/system/electrodes', { timeoutMs: T })).body as {
      position: string;
      enabled: boolean;
      gain: number | null;
    }[];
    const enabled = list.filter((e) => e.enabled && e.gain !== null).map((e) => e.position);
    expect(enabled.sort()).toEqual(['C3', 'C4']);
    expect(list.find((e) => e.position === 'C3')?.gain).toBe(4);
  });

  test('a gain the device has not is refused with 422 naming the field, and the configuration is unchanged', async () => {
    await referenceEeg('?channels=O1', 'gain=8');
    await expect(
      sdkCall(service.url, 'PATCH', '/system/electrodes/O1', {
        json: { position: 'O1', enabled: true, gain: 3.5 },
        timeoutMs: T,
      }),
    ).rejects.toThrow(/^422 .*"path":"\/gain"/);
    expect((await referenceEeg()).gain).toBe(8);
  });
});

describe("the SDK's sensors", () => {
  test('list and get answer the model; GET /system/sensors/imu still answers the reference IMU reading', async () => {
    const list = await sdkCall(service.url, 'GET', '/system/sensors', { timeoutMs: T });
    expect(listProblems(Sensor, list.body)).toEqual([]);
    expect((list.body as { type: string }[]).map((sensor) => sensor.type)).toEqual([
      'eeg',
      'imu',
      'accelerometer',
    ]);
    for (const type of ['eeg', 'imu', 'accelerometer']) {
      const one = await sdkCall(service.url, 'GET', `/system/sensors/${type}`, { timeoutMs: T });
      expect(modelProblems(Sensor, one.body)).toEqual([]);
    }
    const reading = await json(`${service.url}/system/sensors/imu`, {
      headers: { accept: 'application/json' },
    });
    expect(Object.keys(reading.body)).toEqual(
      expect.arrayContaining(['pos_x', 'pos_y', 'pos_z', 'roll', 'pitch', 'yaw']),
    );
  });

  test('enable_sensor("eeg", sample_rate=500) starts acquisition at 500 Hz as the reference paths show; disable releases it', async () => {
    const current = (await sdkCall(service.url, 'GET', '/system/sensors/eeg', { timeoutMs: T }))
      .body as Record<string, unknown>;
    const on = await sdkCall(service.url, 'PATCH', '/system/sensors/eeg', {
      json: { ...current, enabled: true, sample_rate: 500 },
      timeoutMs: T,
    });
    expect(modelProblems(SensorResponse, on.body)).toEqual([]);
    expect((await referenceEeg()).samplingFrequency).toBe(500);
    const stopped = await json(`${service.url}/system/sensors/eeg/stream`, { method: 'DELETE' });
    expect(stopped.body.streaming).toBe(false);
    await sdkCall(service.url, 'PATCH', '/system/sensors/eeg', {
      json: { ...current, enabled: true, sample_rate: 500 },
      timeoutMs: T,
    });
    const off = await sdkCall(service.url, 'PATCH', '/system/sensors/eeg', {
      json: { type: 'eeg', enabled: false, sample_rate: 500, range: null },
      timeoutMs: T,
    });
    expect(modelProblems(SensorResponse, off.body)).toEqual([]);
    expect((off.body as { sensor: { enabled: boolean } }).sensor.enabled).toBe(false);
  });

  test('enable_sensor("accelerometer") (a get, then a set) answers the models: the IMU\'s accelerometer, always on at its output data rate', async () => {
    const current = await sdkCall(service.url, 'GET', '/system/sensors/accelerometer', { timeoutMs: T });
    expect(current.body).toEqual({ type: 'accelerometer', enabled: true, sample_rate: 100, range: null });
    const on = await sdkCall(service.url, 'PATCH', '/system/sensors/accelerometer', {
      json: { ...(current.body as object), enabled: true },
      timeoutMs: T,
    });
    expect(modelProblems(SensorResponse, on.body)).toEqual([]);
    expect((on.body as { sensor: unknown }).sensor).toEqual(current.body);
  });

  test('enable_sensor("accelerometer", sample_rate=…) sets the IMU\'s output data rate, seen on every IMU path; a rate it lacks is 422 naming the rates', async () => {
    // The SDK's README: enable_sensor("accelerometer", sample_rate=100); 200 is another of its rates.
    const set = await sdkCall(service.url, 'PATCH', '/system/sensors/accelerometer', {
      json: { type: 'accelerometer', enabled: true, sample_rate: 200, range: null },
      timeoutMs: T,
    });
    expect(modelProblems(SensorResponse, set.body)).toEqual([]);
    expect((set.body as { sensor: unknown }).sensor).toEqual({
      type: 'accelerometer',
      enabled: true,
      sample_rate: 200,
      range: null,
    });
    expect((await sdkCall(service.url, 'GET', '/system/sensors/imu', { timeoutMs: T })).body).toMatchObject({
      type: 'imu',
      sample_rate: 200,
    });
    await expect(
      sdkCall(service.url, 'PATCH', '/system/sensors/accelerometer', {
        json: { type: 'accelerometer', enabled: true, sample_rate: 30, range: null },
        timeoutMs: T,
      }),
    ).rejects.toThrow(/^422 .*25, 50, 100, 200, 400, 800 Hz.*"path":"\/sample_rate"/);
    await sdkCall(service.url, 'PATCH', '/system/sensors/accelerometer', {
      json: { type: 'accelerometer', enabled: true, sample_rate: 100, range: null },
      timeoutMs: T,
    });
    expect(
      (
        (await sdkCall(service.url, 'GET', '/system/sensors/imu', { timeoutMs: T })).body as {
          sample_rate: number;
        }
      ).sample_rate,
    ).toBe(100);
  });

  test('the accelerometer cannot be disabled: 422 naming enabled', async () => {
    await expect(
      sdkCall(service.url, 'PATCH', '/system/sensors/accelerometer', {
        json: { type: 'accelerometer', enabled: false, sample_rate: null, range: null },
        timeoutMs: T,
      }),
    ).rejects.toThrow(/^422 .*"path":"\/enabled"/);
  });

  test('the IMU cannot be disabled: 422 naming enabled', async () => {
    await expect(
      sdkCall(service.url, 'PATCH', '/system/sensors/imu', {
        json: { type: 'imu', enabled: false, sample_rate: null, range: null },
        timeoutMs: T,
      }),
    ).rejects.toThrow(/^422 .*"path":"\/enabled"/);
  });
});

/**
 * The /system paths on the replay device, through the real service started with
 * `--device replay:FILE`: each answers with the shapes it has on the simulated headset, and the
 * EEG WebSocket carries the file's channels at the file's rate.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { fixture } from '../formats/fixtures.js';
import { json, type Service, startService } from '../support/service.js';

const FIXTURE = fixture('test_bdf_stim_channel.bdf'); // C3 C4 Cz, 500 Hz
let service: Service;

beforeAll(async () => {
  service = await startService({ args: ['--device', `replay:${FIXTURE}`] });
});
afterAll(async () => {
  await service.stop('SIGKILL');
});

const get = async (p: string) => json(`${service.url}${p}`);
const send = async (method: string, p: string, body?: unknown) =>
  json(`${service.url}${p}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });

test('read paths answer with their documented shapes', async () => {
  const version = await get('/system/version');
  expect(version.body.version.hardware).toContain('test_bdf_stim_channel.bdf');
  const health = await get('/system/healthz');
  expect(health.status).toBe(200);
  expect(Object.keys(health.body)).toEqual(
    expect.arrayContaining(['status', 'httpPort', 'grpcPort', 'host', 'battery', 'cpu', 'ram', 'storage']),
  );
  expect(health.body.httpPort).toBe(service.port);
  const status = await get('/system/status');
  expect(status.body.status.eeg.config).toMatchObject({
    channels: ['C3', 'C4', 'CZ'],
    samplingFrequency: 500,
  });
  expect((await get('/system/hostname')).body).toMatchObject({ success: true });
  expect((await get('/system/config')).body.success).toBe(true);
  expect(Object.keys((await get('/system/sensors/imu/primary')).body)).toEqual([
    'pos_x',
    'pos_y',
    'pos_z',
    'roll',
    'pitch',
    'yaw',
  ]);
  expect((await get('/system/sensors/imu?nodeIndex=3')).status).toBe(200);
  expect((await get('/system/led/state')).body).toMatchObject({ success: true, index: 'USER' });
  const positions = await get('/system/motors/position?electrode=C3,CZ');
  expect(Object.keys(positions.body)).toEqual(['C3', 'CZ']);
  const impedance = await get('/system/sensors/impedance/all');
  expect(Object.keys(impedance.body)).toHaveLength(21);
  expect((await get('/system/recordings')).body).toEqual({ success: true, recordings: [] });
});

test('commands and errors behave as on the simulated headset', async () => {
  const moved = await send('POST', '/system/motors/position?getFinalPosition=true', {
    configuration: [{ electrode: 'Cz', movement: 'RETRACT', displacement: 5 }],
  });
  expect(moved.status).toBe(200);
  expect(Object.keys(moved.body)).toEqual(['CZ']);
  const led = await send('PUT', '/system/led/state', { color: '#0f0', blinksPerSecond: 2, index: 'STATUS' });
  expect(led.body).toEqual({
    success: true,
    state: { color: '#00FF00', blinksPerSecond: 2, index: 'STATUS' },
  });
  const unknown = await get('/system/sensors/impedance?channels=XX');
  expect(unknown.status).toBe(422);
  expect(unknown.body.error.code).toBe('validation_failed');
});

test('the EEG WebSocket carries the file’s channels at its rate; impedance is busy meanwhile', async () => {
  const socket = new WebSocket(`${service.url.replace('http', 'ws')}/system/sensors/eeg/stream`);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  const first = new Promise<{ channels: string[]; sampleRate: number; data: number[][] }>((resolve) => {
    socket.once('message', (data: Buffer) => {
      resolve(JSON.parse(data.toString()));
    });
  });
  const started = await send('POST', '/system/sensors/eeg/stream');
  expect(started.body).toMatchObject({ success: true, streaming: true });
  const frame = await first;
  expect(frame.channels).toEqual(['C3', 'C4', 'Cz']);
  expect(frame.sampleRate).toBe(500);
  expect((await get('/system/sensors/impedance?channels=C3')).status).toBe(409);
  socket.close();
  const stopped = await send('DELETE', '/system/sensors/eeg/stream');
  expect(stopped.body).toMatchObject({ success: true, streaming: false });
});

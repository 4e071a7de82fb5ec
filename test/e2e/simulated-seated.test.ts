/**
 * `--device simulated` starts as a headset is put on (electrodes retracted, MΩ, a floating input's
 * EEG); `--device simulated:seated` starts worn with every electrode on the scalp. Both through
 * the real service and its API, as the README shows them.
 */
import { afterEach, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { EEG_ELECTRODES, ELECTRODES } from '../../src/core/electrodes.js';
import { json, type Service, startService } from '../support/service.js';

let service: Service | undefined;
afterEach(async () => {
  await service?.stop('SIGKILL');
  service = undefined;
});

/** The largest |sample| (µV) per channel over the first `samples` samples of acquisition. */
async function eegPeaks(url: string, samples: number): Promise<Record<string, number>> {
  const socket = new WebSocket(`${url.replace('http', 'ws')}/system/sensors/eeg/stream`);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  const peaks: Record<string, number> = {};
  let seen = 0;
  const done = new Promise<void>((resolve) => {
    socket.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString()) as { channels: string[]; data: number[][] };
      for (const row of frame.data) {
        row.forEach((value, i) => {
          const channel = frame.channels[i] ?? '';
          peaks[channel] = Math.max(peaks[channel] ?? 0, Math.abs(value));
        });
      }
      seen += frame.data.length;
      if (seen >= samples) resolve();
    });
  });
  expect((await json(`${url}/system/sensors/eeg/stream`, { method: 'POST' })).status).toBe(200);
  await done;
  socket.close();
  return peaks;
}

async function impedancesOhm(url: string): Promise<number[]> {
  const answer = await json(`${url}/system/sensors/impedance?channels=${ELECTRODES.join(',')}`);
  expect(answer.status).toBe(200);
  return Object.values(answer.body as Record<string, number>);
}

describe('the simulated headset at start-up', () => {
  test('default: every electrode retracted, in the MΩ, with EEG of thousands of µV', async () => {
    service = await startService({ args: ['--device', 'simulated', '--seed', '7'] });
    const positions = await json(`${service.url}/system/motors/position`);
    expect(Object.values(positions.body)).toEqual(ELECTRODES.map(() => 0));
    for (const ohm of await impedancesOhm(service.url)) expect(ohm).toBeGreaterThan(1_000_000);
    const peaks = await eegPeaks(service.url, 250);
    expect(Object.keys(peaks)).toHaveLength(EEG_ELECTRODES.length);
    for (const peak of Object.values(peaks)) expect(peak).toBeGreaterThan(1000);
  });

  test('simulated:seated: worn, every electrode pressed onto the scalp, EEG in the tens of µV', async () => {
    service = await startService({ args: ['--device', 'simulated:seated', '--seed', '7'] });
    const positions = await json(`${service.url}/system/motors/position`);
    for (const steps of Object.values(positions.body as Record<string, number>)) {
      expect(steps).toBeGreaterThan(0);
    }
    for (const ohm of await impedancesOhm(service.url)) expect(ohm).toBeLessThan(50_000);
    const peaks = await eegPeaks(service.url, 250);
    expect(Object.keys(peaks)).toHaveLength(EEG_ELECTRODES.length);
    for (const peak of Object.values(peaks)) expect(peak).toBeLessThan(500);
  });

  test('an unknown variant is refused at start with the choices', async () => {
    await expect(startService({ args: ['--device', 'simulated:worn'] })).rejects.toThrow(/simulated:seated/);
  });

  test('POST /system/motors/position answers as the README shows: state codes, or final positions', async () => {
    service = await startService({ args: ['--device', 'simulated:seated', '--seed', '7'] });
    const url = `${service.url}/system/motors/position`;
    const move = (query: string, movement: string, displacement: number) =>
      json(`${url}${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ configuration: [{ electrode: 'O1', movement, displacement }] }),
      });
    const start = (await json(`${url}?electrode=O1`)).body.O1 as number;
    // No flag: at once, the state code of that moment (1 moving).
    expect((await move('', 'RETRACT', 10)).body).toEqual({ O1: 1 });
    // waitUntilComplete: once the motor stopped, its final state code (0 idle).
    expect((await move('?waitUntilComplete=true', 'RELEASE', 5)).body).toEqual({ O1: 0 });
    // getFinalPosition: waits too and answers the position, here where the scalp stopped it.
    const final = (await move('?getFinalPosition=true', 'RELEASE', 70)).body.O1 as number;
    expect(final).toBeGreaterThan(start - 10);
    expect(final).toBeLessThan(100);
    expect((await json(`${service.url}/system/motors/state?electrode=O1`)).body).toEqual({ O1: 3 });
  });
});

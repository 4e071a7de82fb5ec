/**
 * The composer of devices: `--device` names the simulated headset, a replay, or a live amplifier
 * through the driver registered for its prefix; a prefix without a driver, or a driver that cannot
 * open its amplifier, is a clear start-up error.
 */
import pino from 'pino';
import { afterEach, describe, expect, test } from 'vitest';
import { FakeLiveDriver } from '../../test/support/fake-live-driver.js';
import type { Headset } from '../device/headset.js';
import { openDevice, registerLiveDriver } from './devices.js';
import { capabilities } from '../device/capabilities.js';

const logger = pino({ level: 'silent' });
const restores: (() => void)[] = [];
let device: Headset | undefined;
afterEach(async () => {
  await device?.close();
  device = undefined;
  for (const restore of restores.splice(0).reverse()) restore();
});

async function refusal(work: Promise<unknown>): Promise<Error & { code?: string }> {
  return work.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: unknown) => error as Error,
  );
}

describe('openDevice', () => {
  test('simulated is the default device, with every part', async () => {
    device = await openDevice('simulated', 3, { logger });
    expect(device.info().kind).toBe('simulated');
    expect(Object.values(capabilities(device)).every(Boolean)).toBe(true);
  });

  test('a registered live driver is opened with the argument after the prefix', async () => {
    const drivers: { argument: string; driver: FakeLiveDriver }[] = [];
    restores.push(
      registerLiveDriver('cyton', (argument) => {
        const driver = new FakeLiveDriver();
        drivers.push({ argument, driver });
        return driver;
      }),
    );
    device = await openDevice('cyton:/dev/ttyUSB0', undefined, { logger });
    expect(drivers.map((d) => d.argument)).toEqual(['/dev/ttyUSB0']);
    expect(drivers[0]?.driver.opened.count).toBe(1);
    expect(capabilities(device)).toMatchObject({ eeg: true, motors: false });
  });

  test('a prefix whose driver this build lacks fails naming the driver', async () => {
    restores.push(registerLiveDriver('lsl', undefined));
    const error = await refusal(openDevice('lsl:type=EEG', undefined, { logger }));
    expect(error.code).toBe('device_unavailable');
    expect(error.message).toMatch(
      /^The device 'lsl:type=EEG' needs the lsl driver, which this build of headsetd does not have/,
    );
  });

  test('an amplifier that cannot be reached fails naming the device and why', async () => {
    restores.push(
      registerLiveDriver(
        'cyton',
        () => new FakeLiveDriver({ openError: new Error('/dev/ttyUSB7: no such file or directory') }),
      ),
    );
    const error = await refusal(openDevice('cyton:/dev/ttyUSB7', undefined, { logger }));
    expect(error.code).toBe('device_unavailable');
    expect(error.message).toBe(
      "The device 'cyton:/dev/ttyUSB7' cannot be opened: /dev/ttyUSB7: no such file or directory",
    );
  });

  test('lsl and lsl: alone open the LSL driver with the documented default query (they were refused as unknown)', async () => {
    const argumentsSeen: string[] = [];
    restores.push(
      registerLiveDriver('lsl', (argument) => {
        argumentsSeen.push(argument);
        return new FakeLiveDriver({ openError: new Error('no stream') });
      }),
    );
    for (const device of ['lsl', 'lsl:']) {
      const error = await refusal(openDevice(device, undefined, { logger }));
      expect(error.message).toBe(`The device '${device}' cannot be opened: no stream`);
    }
    expect(argumentsSeen).toEqual(['', '']);
  });

  test('an unknown device names those there are', async () => {
    const error = await refusal(openDevice('hardware:1', undefined, { logger }));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain('cyton:SERIAL_PORT or lsl:QUERY');
  });
});

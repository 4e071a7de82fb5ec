/**
 * The kinds of device, listed once (kinds.ts): `--device` names the simulated headset, a replay, or
 * a live amplifier of a kind in the list; the setting's schema pattern, its check and the start-up's
 * opening all come from that list, and an amplifier that cannot be opened is a clear start-up error.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { FakeLiveDriver } from '../../test/support/fake-live-driver.js';
import { SettingsSchema } from '../service/config.js';
import { capabilities } from './capabilities.js';
import type { Headset } from './headset.js';
import {
  DEVICE_KINDS,
  type DeviceKind,
  deviceSettingPattern,
  deviceSettingProblem,
  openDevice,
} from './kinds.js';
import { openLiveHeadset } from './live/live-headset.js';

const context = { log: () => undefined };
let device: Headset | undefined;
afterEach(async () => {
  await device?.close();
  device = undefined;
});

async function refusal(work: Promise<unknown>): Promise<Error & { code?: string }> {
  return work.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: unknown) => error as Error,
  );
}

/** The list with `name`'s kind opening through `open` instead (a fake amplifier). */
function withKind(name: string, open: DeviceKind['open']): DeviceKind[] {
  return DEVICE_KINDS.map((kind) => (kind.name === name ? { ...kind, open } : kind));
}

describe('openDevice', () => {
  test('simulated is the default device, with every part; simulated:seated is worn', async () => {
    device = await openDevice('simulated', { ...context, seed: 3 });
    expect(device.info().kind).toBe('simulated');
    expect(Object.values(capabilities(device)).every(Boolean)).toBe(true);
    expect(Object.values(device.motors?.positions() ?? {}).every((position) => position === 0)).toBe(true);
    await device.close();
    device = await openDevice('simulated:seated', context);
    expect(Object.values(device.motors?.positions() ?? {}).every((position) => position > 0)).toBe(true);
  });

  test('a live kind is opened with the text after its name', async () => {
    const opened: { argument: string; driver: FakeLiveDriver }[] = [];
    const kinds = withKind('cyton', (argument) => {
      const driver = new FakeLiveDriver();
      opened.push({ argument, driver });
      return openLiveHeadset(driver);
    });
    device = await openDevice('cyton:/dev/ttyUSB0', context, kinds);
    expect(opened.map((o) => o.argument)).toEqual(['/dev/ttyUSB0']);
    expect(opened[0]?.driver.opened.count).toBe(1);
    expect(capabilities(device)).toMatchObject({ eeg: true, motors: false });
  });

  test('an amplifier that cannot be reached fails naming the device and why', async () => {
    // The real serial link, on a path that does not exist.
    const error = await refusal(openDevice('cyton:/dev/ttyUSB-headsetd-absent', context));
    expect(error.code).toBe('device_unavailable');
    expect(error.message).toMatch(
      /^The device 'cyton:\/dev\/ttyUSB-headsetd-absent' cannot be opened: .*No such file or directory/,
    );
  });

  test('lsl and lsl: alone open the LSL kind with an empty query (its default, type=EEG)', async () => {
    const seen: string[] = [];
    const kinds = withKind('lsl', (argument) => {
      seen.push(argument);
      return Promise.reject(new Error('no stream'));
    });
    for (const value of ['lsl', 'lsl:']) {
      const error = await refusal(openDevice(value, context, kinds));
      expect(error.message).toBe(`The device '${value}' cannot be opened: no stream`);
    }
    expect(seen).toEqual(['', '']);
  });

  test('a device of no kind in the list names the kinds there are', async () => {
    const error = await refusal(openDevice('hardware:1', context));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toBe(
      "The device 'hardware:1' is unknown; use simulated, simulated:seated, replay:FILE, cyton:SERIAL_PORT or lsl:QUERY.",
    );
    // A list without LSL (a build without its driver) does not offer it.
    const without = DEVICE_KINDS.filter((kind) => kind.name !== 'lsl');
    const unbuilt = await refusal(openDevice('lsl:type=EEG', context, without));
    expect(unbuilt.message).toBe(
      "The device 'lsl:type=EEG' is unknown; use simulated, simulated:seated, replay:FILE or cyton:SERIAL_PORT.",
    );
  });
});

describe('the device setting', () => {
  test("the settings' schema takes its pattern from the kinds", () => {
    const schema = SettingsSchema.properties.device as { pattern?: string; description?: string };
    expect(schema.pattern).toBe(deviceSettingPattern());
    expect(schema.description).toContain('cyton:SERIAL_PORT (an OpenBCI Cyton board');
  });

  test.each([
    ['simulated', true],
    ['simulated:seated', true],
    ['simulated:standing', false],
    ['replay:/data/a.bdf', true],
    ['replay:', false],
    ['cyton:/dev/ttyUSB0', true],
    ['cyton', false],
    ['lsl', true],
    ['lsl:', true],
    ['lsl:type=EEG', true],
    ['openbci', false],
  ])('%s is a device: %s', (value, valid) => {
    expect(deviceSettingProblem(value) === undefined).toBe(valid);
    expect(new RegExp(deviceSettingPattern()).test(value)).toBe(valid);
  });

  test('a kind named with nothing after it says what to give', () => {
    expect(deviceSettingProblem('cyton:')).toMatch(/^"cyton:" names no serial port: .*cyton:\/dev\/ttyUSB0/);
    expect(deviceSettingProblem('replay:')).toMatch(
      /^"replay:" names no file: .*replay:\/data\/session\.bdf/,
    );
    expect(deviceSettingProblem('foo')).toMatch(
      /^"foo" is not a device: use simulated \(.*\) or lsl:QUERY \(/,
    );
    expect(deviceSettingProblem(3)).toMatch(/^must be a text: simulated/);
  });
});

/**
 * Every path of the API on a live amplifier without motors, LEDs, IMU, battery, peripheral bus or
 * impedance meter (a fake one, as an LSL stream is): each path the OpenAPI document lists under
 * /system, the guides and the maker's SDK is called with its documented example; none answers 500,
 * and exactly the paths that need a missing part answer 409 not_supported naming the device and
 * that part. Status and healthz list the capabilities; healthz keeps a battery record the SDK
 * parses; a stored configuration made for another device does not stop the start-up.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, test } from 'vitest';
import { DEFAULTS } from '../../src/service/config.js';
import { systemClock } from '../../src/device/clock.js';
import { openLiveHeadset } from '../../src/device/live/live-headset.js';
import { createSimulatedHeadset } from '../../src/device/simulated/index.js';
import type { Headset } from '../../src/device/headset.js';
import { type RunningServer, startServer } from '../../src/service/server.js';
import { FakeLiveDriver } from '../support/fake-live-driver.js';
import { FakeRuntime } from '../support/fake-runtime.js';
import { DeviceState, modelProblems } from '../support/instinct-models.js';
import { STREAM_HOST } from '../support/stream-host.js';
import { scratchDir } from '../support/scratch.js';

const DEVICE = 'The Fake amplifier (the test)';

/**
 * What each path that needs a part answers on a device with EEG alone: the part it names. Written
 * out here, as the service answered before the parts became optional, so that the declarations on
 * the routes (`config.needs`) cannot drift from it unnoticed.
 */
const PART_ROUTES: Readonly<Record<string, string>> = {
  'GET /system/sensors/impedance': 'impedance',
  'GET /system/sensors/impedance/all': 'impedance',
  'GET /system/motors/position': 'motors',
  'POST /system/motors/position': 'motors',
  'GET /system/motors/state': 'motors',
  'POST /system/motors/position/reset': 'motors',
  'GET /system/led/state': 'leds',
  'PUT /system/led/state': 'leds',
  'GET /system/sensors/imu/primary': 'imu',
  'GET /system/sensors/imu': 'imu',
  'GET /system/sensors/{type}': 'imu',
  'PATCH /system/sensors/{type}': 'imu',
  'POST /system/debug/command': 'peripheralBus',
  'POST /system/system/debug': 'peripheralBus',
  'POST /electrodes/impedance/start': 'impedance',
  'POST /electrodes/impedance/snapshot': 'impedance',
  'POST /electrodes/impedance/optimize': 'motors',
  'POST /electrodes/impedance/schedule': 'impedance',
  'POST /electrodes/adjust': 'motors',
  'POST /electrodes/prepare': 'motors',
  'POST /electrodes/diagnose': 'impedance',
  'POST /motors/control': 'motors',
  'POST /motors/apply-pressure': 'motors',
  'POST /leds/impedance-visualization': 'leds',
  'POST /system/peripheral/electrodes/impedance': 'impedance',
  'GET /system/peripheral/leds': 'leds',
  'PUT /system/peripheral/leds/{id}': 'leds',
  'GET /system/peripheral/motors': 'motors',
  'POST /system/peripheral/motors/move': 'motors',
  'GET /system/battery': 'battery',
};

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function dataDir(): string {
  const dir = scratchDir('headsetd-live-paths');
  cleanups.push(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** A sysfs tree with one thermal zone at `milliCelsius`, or with no temperature sensor at all. */
function sysRoot(milliCelsius?: number): string {
  const root = dataDir();
  if (milliCelsius !== undefined) {
    mkdirSync(path.join(root, 'class/thermal/thermal_zone0'), { recursive: true });
    writeFileSync(path.join(root, 'class/thermal/thermal_zone0/temp'), `${milliCelsius}\n`);
  }
  return root;
}

async function serve(device: Headset, dir = dataDir(), sys = sysRoot(51_000)): Promise<RunningServer> {
  const server = await startServer({
    workerEntry: STREAM_HOST,
    settings: { ...DEFAULTS, port: 0, dataDir: dir },
    logger: pino({ level: 'silent' }),
    runtime: new FakeRuntime(),
    device,
    sysRoot: sys,
  });
  cleanups.push(() => server.close());
  return server;
}

function liveDevice(): Promise<Headset> {
  return openLiveHeadset(new FakeLiveDriver({ clock: systemClock, blockRows: 5 }));
}

interface Operation {
  'x-device-parts'?: string[];
  requestBody?: {
    content: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> }>;
  };
  responses: Record<string, unknown>;
}

/** A path parameter filled with a value the path accepts. */
function fill(name: string): string {
  if (/lectrode|position/.test(name)) return 'O1';
  if (name.includes('type')) return 'imu';
  return '0';
}

/** Calls `method route` with the body of its documented example and its path parameters filled. */
function call(server: RunningServer, route: string, method: string, operation: Operation) {
  const url = route.replace(/\{([^}]+)\}/g, (_, name: string) => fill(name));
  const media = operation.requestBody?.content['application/json'];
  const body = media?.example ?? Object.values(media?.examples ?? {})[0]?.value;
  return server.app.inject({
    method: method.toUpperCase() as 'GET',
    url,
    ...(body === undefined ? {} : { payload: body as object }),
  });
}

describe('the API on a live amplifier with EEG only', () => {
  test('every device, guide and SDK path answers without a 500; exactly those needing a missing part answer not_supported', async () => {
    const server = await serve(await liveDevice());
    const document = (await server.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, Operation>>;
    }>();
    const failures: string[] = [];
    const refused: Record<string, string> = {};
    // The parts the document says each path needs: on this device, which has none of them, the
    // first one is the one named.
    const documented: Record<string, string | undefined> = {};
    for (const [route, item] of Object.entries(document.paths)) {
      if (/^\/(stream|streams|recordings|openapi|docs|dashboard)/.test(route)) continue;
      for (const [method, operation] of Object.entries(item)) {
        if ('101' in operation.responses) continue;
        const answer = await call(server, route, method, operation);
        const name = `${method.toUpperCase()} ${route}`;
        if (operation['x-device-parts'] !== undefined) documented[name] = operation['x-device-parts'][0];
        if (answer.statusCode >= 500)
          failures.push(`${name}: ${answer.statusCode} ${answer.body.slice(0, 300)}`);
        if (answer.statusCode !== 409) continue;
        const error = answer.json<{
          error: { code: string; message: string; details: Record<string, string> };
        }>().error;
        if (error.code !== 'not_supported') continue;
        refused[name] = error.details.capability as string;
        // The document lists the 409 the route answers.
        expect(Object.keys(operation.responses), name).toContain('409');
        expect(error.details.device, name).toBe(DEVICE);
        expect(error.message.startsWith(`${DEVICE} has no `), name).toBe(true);
      }
    }
    expect(failures).toEqual([]);
    expect(refused).toEqual(PART_ROUTES);
    expect(documented).toEqual(PART_ROUTES);
  });

  test('while EEG acquisition runs, a path needing a missing part still answers not_supported, not device_busy', async () => {
    const server = await serve(await liveDevice());
    const document = (await server.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, Operation>>;
    }>();
    expect((await server.app.inject({ method: 'POST', url: '/system/sensors/eeg/stream' })).statusCode).toBe(
      200,
    );
    const answers: Record<string, string> = {};
    for (const name of Object.keys(PART_ROUTES)) {
      const [method = '', route = ''] = name.split(' ');
      const operation = document.paths[route]?.[method.toLowerCase()];
      if (operation === undefined) throw new Error(`${name} is not in the OpenAPI document`);
      const answer = await call(server, route, method, operation);
      answers[name] = `${answer.statusCode} ${answer.json<{ error?: { code: string } }>().error?.code ?? ''}`;
    }
    expect(answers).toEqual(
      Object.fromEntries(Object.keys(PART_ROUTES).map((name) => [name, '409 not_supported'])),
    );
  });

  test('status and healthz list the capabilities; healthz says there is no battery and still parses as the SDK reads it', async () => {
    const server = await serve(await liveDevice());
    const capabilities = {
      eeg: true,
      impedance: false,
      motors: false,
      leds: false,
      imu: false,
      battery: false,
      peripheralBus: false,
    };
    const status = (await server.app.inject({ method: 'GET', url: '/system/status' })).json<{
      status: Record<string, unknown>;
    }>();
    expect(status.status).toMatchObject({ state: 'idle', battery: null, capabilities });
    // No figure is a model's: there is no battery, and the CPU's is the machine's sensor.
    expect(status.status.simulated).toEqual([]);
    expect(status.status.temperatures).toEqual({
      cpu: { celsius: 51, source: 'sensor' },
      battery: { celsius: null, source: 'none' },
    });
    const health = (await server.app.inject({ method: 'GET', url: '/system/healthz' })).json<
      Record<string, unknown>
    >();
    expect(health).toMatchObject({
      status: 'healthy',
      capabilities,
      battery: { hasBattery: false, percent: 0, timeRemaining: null, temperature: null, type: 'none' },
    });
    expect(modelProblems(DeviceState, health)).toEqual([]);
    const version = (await server.app.inject({ method: 'GET', url: '/system/version' })).json<{
      version: Record<string, string>;
    }>();
    expect(version.version).toMatchObject({ device: 'fake', source: 'the test', hardware: 'fake rev 1' });
    const sensors = (await server.app.inject({ method: 'GET', url: '/system/sensors' })).json<
      {
        type: string;
      }[]
    >();
    expect(sensors.map((s) => s.type)).toEqual(['eeg']);
  });

  test('on a machine without a temperature sensor, no CPU temperature is made up: status says none, healthz null', async () => {
    const server = await serve(await liveDevice(), dataDir(), sysRoot());
    const status = (await server.app.inject({ method: 'GET', url: '/system/status' })).json<{
      status: { temperatures: unknown; simulated: unknown };
    }>();
    expect(status.status.temperatures).toEqual({
      cpu: { celsius: null, source: 'none' },
      battery: { celsius: null, source: 'none' },
    });
    expect(status.status.simulated).toEqual([]);
    const health = (await server.app.inject({ method: 'GET', url: '/system/healthz' })).json<{
      status: string;
      cpu: { temperature: unknown };
    }>();
    expect(health.cpu.temperature).toBeNull();
    expect(health.status).toBe('healthy');
  });

  test("status lists the device's own channels, as data: each played one with unit, type and place, each other with why", async () => {
    const device = await openLiveHeadset(
      new FakeLiveDriver({
        clock: systemClock,
        channels: [
          { label: 'TP9', name: 'TP9', type: 'EEG' },
          { label: 'AF7', name: 'AF7', type: 'EEG' },
          { label: 'Right AUX', name: 'Right AUX', type: 'AUX' },
          { label: 'ACC_X', name: undefined, type: 'ACC', reason: 'its unit "g" is not a voltage' },
        ],
      }),
    );
    const server = await serve(device);
    const status = (await server.app.inject({ url: '/system/status' })).json();
    expect(
      status.status.channels.played.map((c: { name: string; type: string }) => [c.name, c.type]),
    ).toEqual([
      ['TP9', 'EEG'],
      ['AF7', 'EEG'],
      ['Right AUX', 'AUX'],
    ]);
    expect(status.status.channels.played[0].unit).toBe('µV');
    expect(status.status.channels.played[0].position.x).toBeLessThan(-0.8);
    expect(status.status.channels.played[2].position).toBeUndefined();
    expect(status.status.channels.unplayed).toEqual([
      { name: 'ACC_X', reason: 'its unit "g" is not a voltage' },
    ]);
    // The device's names are what the EEG configuration takes and answers, in any case.
    const put = await server.app.inject({
      method: 'PUT',
      url: '/system/sensors/eeg?channels=tp9,right%20aux',
    });
    expect(put.statusCode).toBe(200);
    expect(put.json().config.channels).toEqual(['TP9', 'Right AUX']);
    const bad = await server.app.inject({ method: 'PUT', url: '/system/sensors/eeg?channels=TP9,Fp1' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().error.message).toContain('has no channel "Fp1"; its channels are TP9, AF7, Right AUX');
    // A stream is checked against the same names when it is made, pointing at the name.
    const stream = (channels: string[]) =>
      server.app.inject({
        method: 'POST',
        url: '/stream/streams',
        payload: {
          id: '2c9e4f1a-6b3d-4e8f-9a1b-3c4d5e6f7a8b',
          nodes: [{ id: 'eeg', executable: 'eeg-source', config: { channels } }],
          pipes: [],
        },
      });
    const refused = await stream(['tp9', 'Fp1']);
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error.details.path).toBe('/nodes/0/config/channels/1');
    expect(refused.json().error.message).toContain(
      "'Fp1' is not a channel of the device; its channels are TP9, AF7, Right AUX",
    );
    expect((await stream(['tp9', 'right aux'])).statusCode).toBe(200);
  });

  test('the simulated headset lists every part in status and healthz', async () => {
    const server = await serve(createSimulatedHeadset({ seed: 2 }));
    const status = (await server.app.inject({ method: 'GET', url: '/system/status' })).json<{
      status: { capabilities: Record<string, boolean>; battery: unknown };
    }>();
    expect(Object.values(status.status.capabilities)).toEqual([true, true, true, true, true, true, true]);
    expect(status.status.battery).not.toBeNull();
  });

  test('a configuration stored for another device (gain 12, a threshold) does not stop a live device from starting', async () => {
    const dir = dataDir();
    const first = await serve(createSimulatedHeadset({ seed: 2 }), dir);
    const set = await first.app.inject({
      method: 'PATCH',
      url: '/system/config',
      headers: { 'content-type': 'application/merge-patch+json' },
      payload: { eeg: { gain: 12 }, lowBatteryThreshold: 30 },
    });
    expect(set.statusCode).toBe(200);
    await first.close();
    const device = await liveDevice();
    const second = await serve(device, dir);
    expect(device.eeg.config().gain).toBe(1);
    const eeg = await second.app.inject({ method: 'POST', url: '/system/sensors/eeg/stream' });
    expect(eeg.statusCode).toBe(200);
  });
});

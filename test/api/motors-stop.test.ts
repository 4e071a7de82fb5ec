/**
 * No motor keeps driving without a client behind it: when the service starts (a service killed
 * during a move leaves a real headset executing its last command), when it shuts down (before its
 * streams and sockets wind down, not after), and when it must exit at once. The service is
 * assembled by startServer over a FakeRuntime and a simulated headset whose motors are moving.
 * (A move that outlasts its time and the loss of the device: src/device/simulated/motors.test.ts.)
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/service/config.js';
import { createSimulatedHeadset, type SimulatedHeadset } from '../../src/device/simulated/index.js';
import { type RunningServer, startServer } from '../../src/service/server.js';
import { FakeRuntime } from '../support/fake-runtime.js';
import { capturingLogger } from '../support/log-capture.js';
import { requirePart } from '../../src/device/capabilities.js';
import { STREAM_HOST } from '../support/stream-host.js';
import { scratchDir } from '../support/scratch.js';

const dirs: string[] = [];
const servers: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function serve(
  device: SimulatedHeadset,
  records: Record<string, unknown>[] = [],
): Promise<RunningServer> {
  const dataDir = scratchDir('headsetd-motors-stop');
  dirs.push(dataDir);
  const server = await startServer({
    workerEntry: STREAM_HOST,
    settings: { ...DEFAULTS, port: 0, dataDir },
    logger: capturingLogger(records),
    runtime: new FakeRuntime(),
    device,
  });
  servers.push(server);
  return server;
}

/** A headset whose O1 and CZ are in the middle of long moves (5 s to MAX). */
async function movingHeadset(): Promise<SimulatedHeadset> {
  const device = createSimulatedHeadset({ seed: 3 });
  await requirePart(device, 'motors').move([
    { electrode: 'O1', movement: 'RELEASE', displacement: 100 },
    { electrode: 'CZ', movement: 'RELEASE', displacement: 100 },
  ]);
  expect(device.status().motors.moving).toEqual(['O1', 'CZ']);
  return device;
}

describe('motors and the life of the service', () => {
  it('at start, stops motors found moving and logs which', async () => {
    const device = await movingHeadset();
    const records: Record<string, unknown>[] = [];
    await serve(device, records);
    expect(device.status().motors.moving).toEqual([]);
    expect(records).toContainEqual(
      expect.objectContaining({
        electrodes: ['O1', 'CZ'],
        msg: expect.stringContaining('when the service started'),
      }),
    );
  });

  it('at shutdown, stops the motors as the shutdown begins, before streams and sockets close', async () => {
    const server = await serve(createSimulatedHeadset({ seed: 3 }));
    await server.app.inject({
      method: 'POST',
      url: '/system/motors/position',
      payload: { configuration: [{ electrode: 'FZ', movement: 'RELEASE', displacement: 100 }] },
    });
    expect(server.device.status().motors.moving).toEqual(['FZ']);
    const closing = server.close();
    // Synchronously, before anything of the shutdown was awaited.
    expect(server.device.status().motors.moving).toEqual([]);
    const at = requirePart(server.device, 'motors').positions(['FZ']).FZ;
    await closing;
    expect(requirePart(server.device, 'motors').positions(['FZ']).FZ).toBe(at);
  });

  it('on a forced exit (abort), stops the motors synchronously', async () => {
    const device = createSimulatedHeadset({ seed: 3 });
    const server = await serve(device);
    await requirePart(device, 'motors').move([{ electrode: 'PZ', movement: 'RELEASE', displacement: 100 }]);
    expect(device.status().motors.moving).toEqual(['PZ']);
    server.abort();
    expect(device.status().motors.moving).toEqual([]);
  });
});

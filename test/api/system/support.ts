/**
 * Builds a Fastify app the way src/api/app.ts does (parsers, validation, error envelope, OpenAPI,
 * WebSocket) with the /system and guide plugins on a simulated headset and a temporary data dir.
 */
import type { LiveSockets } from '../../../src/events/live-sockets.js';
import { rmSync } from 'node:fs';
import { SettingsStore } from '../../../src/platform/store/settings-store.js';
import { EventHub } from '../../../src/events/hub.js';
import websocket from '@fastify/websocket';
import Fastify, { type FastifyInstance } from 'fastify';
import { registerBodyParsers } from '../../../src/api/body.js';
import { installErrorHandling } from '../../../src/api/error-handler.js';
import { guidesPlugin } from '../../../src/api/guides/index.js';
import { registerOpenApi } from '../../../src/api/openapi.js';
import { systemPlugin } from '../../../src/api/system/index.js';
import {
  applyStoredConfig,
  type DeviceServices,
  type DeviceServicesOptions,
  deviceServices,
} from '../../../src/service/services.js';
import type { Headset } from '../../../src/device/headset.js';
import { installValidation } from '../../../src/api/validation.js';
import {
  createSimulatedHeadset,
  type SimulatedHeadset,
  type SimulatedHeadsetOptions,
} from '../../../src/device/simulated/index.js';
import { type Db, openDatabase } from '../../../src/platform/store/database.js';
import { scratchDir } from '../../support/scratch.js';

export interface SystemApp {
  app: FastifyInstance;
  device: SimulatedHeadset;
  /** The device's event hub, as the plugins have it. */
  events: EventHub;
  /** The live socket of the device's frames (GET /system/sensors/eeg/stream), as the plugin has it. */
  eegSockets: LiveSockets;
  db: Db;
  dataDir: string;
  /** Listens on 127.0.0.1:0 and answers the ws:// base URL. */
  listen(): Promise<string>;
  close(options?: { keepData?: boolean }): Promise<void>;
}

/**
 * The services of the /system and guide plugins over a device and a store, built by the service's
 * own assembly (src/service/services.ts) as the service builds them: one event hub and one settings store,
 * shared by both plugins.
 */
export function pluginOptions(
  device: Headset,
  db: Db,
  dataDir: string,
  extra: Partial<DeviceServicesOptions> = {},
): DeviceServices {
  return deviceServices({
    device,
    events: new EventHub(device),
    settings: new SettingsStore(db),
    db,
    dataDir,
    httpPort: () => 0,
    version: 't',
    ...extra,
  });
}

/**
 * The /system plugin (and the guide plugin unless `guides: false`) as the service registers them:
 * the stored device configuration applied first, the services closed when the app closes.
 */
export function wiredPlugins(
  services: DeviceServices,
  options: { guides?: boolean } = {},
): (scope: FastifyInstance) => Promise<void> {
  return async (scope) => {
    await applyStoredConfig(services.system.device, services.system.settings, scope.log);
    scope.addHook('onClose', async () => {
      await services.close();
    });
    systemPlugin(scope, services.system);
    if (options.guides !== false) guidesPlugin(scope, services.guides);
  };
}

export async function systemApp(
  options: { dataDir?: string; device?: SimulatedHeadsetOptions; guides?: boolean; sysRoot?: string } = {},
): Promise<SystemApp> {
  const dataDir = options.dataDir ?? scratchDir('headsetd-system');
  const db = openDatabase(dataDir);
  const device = createSimulatedHeadset({ seed: 7, ...options.device });
  const app = Fastify({ logger: false }) as unknown as FastifyInstance;
  installErrorHandling(app);
  installValidation(app);
  await registerBodyParsers(app);
  await registerOpenApi(app, '0.0.0-test');
  await app.register(websocket);
  let port = 42069;
  const services = pluginOptions(device, db, dataDir, {
    httpPort: () => port,
    version: '0.0.0-test',
    ...(options.sysRoot === undefined ? {} : { sysRoot: options.sysRoot }),
  });
  const events = services.system.hub;
  await app.register(wiredPlugins(services, { guides: options.guides !== false }));
  await app.ready();
  return {
    app,
    device,
    events,
    eegSockets: services.system.eegSockets,
    db,
    dataDir,
    async listen() {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address();
      if (address === null || typeof address === 'string') throw new Error('not listening');
      port = address.port;
      return `ws://127.0.0.1:${port}`;
    },
    async close(closeOptions = {}) {
      await app.close();
      await device.close();
      db.close();
      if (closeOptions.keepData !== true) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The parsed JSON body of an inject answer. */
export function json(response: { body: string }): Record<string, unknown> {
  return JSON.parse(response.body) as Record<string, unknown>;
}

/** The error envelope's error of an inject answer. */
export function errorOf(response: { body: string }): {
  code: string;
  message: string;
  details?: Record<string, unknown>;
} {
  return (json(response) as { error: { code: string; message: string; details?: Record<string, unknown> } })
    .error;
}

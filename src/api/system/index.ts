/**
 * Every /system endpoint of docs/system-paths.md §/system (except recordings), on the device's `Headset`
 * interface. `createApp` registers {@link systemPlugin} with a {@link SystemPluginOptions}.
 */
import type { FastifyInstance } from 'fastify';
import type { SystemContext } from './context.js';
import { clockRoutes } from './clock.js';
import { configRoutes } from './config.js';
import { debugRoutes } from './debug.js';
import { eegRoutes } from './eeg.js';
import { eventRoutes } from './events.js';
import { healthRoutes } from './health.js';
import { hostnameRoutes } from './hostname.js';
import { impedanceRoutes } from './impedance.js';
import { imuRoutes } from './imu.js';
import { jobRoutes } from './jobs.js';
import { ledRoutes } from './leds.js';
import { motorRoutes } from './motors.js';
import { simulatorRoutes } from './simulator.js';
import { type StatusKeeping, statusRoutes } from './status.js';
import { refuseMissingParts } from '../part-routes.js';

/** What {@link systemPlugin} is handed. */
export type SystemPluginOptions = SystemContext;

/**
 * Registers every /system route on the services it is handed. `shared.writes` (createApp's): the
 * requests that may change state, so that GET /system/status keeps its answer between polls
 * for up to `shared.statusMaxAgeMs` (polled-answer.ts); without it every request makes its own.
 */
export function systemPlugin(
  app: FastifyInstance,
  context: SystemPluginOptions,
  shared: StatusKeeping = {},
): void {
  refuseMissingParts(app, context.device);
  eegRoutes(app, context);
  impedanceRoutes(app, context);
  motorRoutes(app, context);
  ledRoutes(app, context);
  imuRoutes(app, context);
  healthRoutes(app, context);
  hostnameRoutes(app, context);
  clockRoutes(app);
  configRoutes(app, context);
  statusRoutes(app, context, shared);
  debugRoutes(app, context);
  eventRoutes(app, context);
  jobRoutes(app, context);
  simulatorRoutes(app, context);
}

export type { SystemContext, TokenWaiver } from './context.js';
export { SettingsStore } from '../../platform/store/settings-store.js';

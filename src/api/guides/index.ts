/**
 * The guide paths of docs/system-paths.md §Guide paths (impedance sessions, history, snapshots, head map,
 * optimize/adjust, schedules, preparation, diagnosis, motor control, LED visualization, hardware
 * variants), on the device's `Headset` interface. Values in kΩ, electrode names in the mixed
 * 10-20 case. `createApp` registers {@link guidesPlugin} with the same options as the /system
 * plugin.
 */
import type { FastifyInstance } from 'fastify';
import { ImpedanceStore } from '../../device/impedance-store.js';
import { SettingsStore } from '../../device/settings-store.js';
import { eventHubFor } from '../system/event-hub.js';
import { mixedCaseMap } from '../system/http-helpers.js';
import type { SystemPluginOptions } from '../system/index.js';
import { SocketFanout } from '../system/socket-fanout.js';
import { currentConfig, type GuidesContext } from './context.js';
import { historyRoutes } from './history.js';
import { impedanceSessionRoutes } from './impedance.js';
import { ImpedanceSessions } from './impedance-sessions.js';
import { LatestImpedance } from './latest-impedance.js';
import { ledVisualizationRoutes } from './led-visualization.js';
import { mapRoutes } from './map.js';
import { MotorLocks } from './motor-locks.js';
import { guideMotorRoutes } from './motors.js';
import { optimizeRoutes } from './optimize.js';
import { peripheralDeviceRoutes } from './peripheral-devices.js';
import { peripheralElectrodeRoutes } from './peripheral-electrodes.js';
import { preparationRoutes } from './preparation.js';
import { scheduleRoutes } from './schedule-routes.js';
import { ImpedanceSchedules } from './schedules.js';

/** The same options as {@link SystemPluginOptions}; only `device`, `db` and `settings` are used. */
export type GuidesPluginOptions = Pick<SystemPluginOptions, 'device' | 'db' | 'settings'> &
  Partial<SystemPluginOptions>;

export function guidesPlugin(app: FastifyInstance, options: GuidesPluginOptions): void {
  const cleanups: (() => void)[] = [];
  const settings = options.settings ?? new SettingsStore(options.db);
  const hub = eventHubFor(options.device);
  const store = new ImpedanceStore(options.db);
  const latest = new LatestImpedance(hub);
  const live = new SocketFanout();
  const sessions = new ImpedanceSessions(options.device, store, (session, reading) => {
    if (session.mode === 'continuous')
      live.send({ timestamp: reading.timestamp, values: mixedCaseMap(reading.values) });
  });
  const context: GuidesContext = {
    device: options.device,
    hub,
    store,
    settings,
    latest,
    sessions,
    locks: new MotorLocks(),
    config: () => currentConfig(settings),
    onClose: (cleanup) => cleanups.push(cleanup),
  };
  const schedules = new ImpedanceSchedules(context);
  app.addHook('onClose', async () => {
    schedules.close();
    sessions.close();
    latest.close();
    live.closeAll();
    for (const cleanup of cleanups) cleanup();
  });

  impedanceSessionRoutes(app, context, live);
  historyRoutes(app, context);
  mapRoutes(app, context);
  optimizeRoutes(app, context);
  scheduleRoutes(app, schedules);
  preparationRoutes(app, context);
  guideMotorRoutes(app, context);
  ledVisualizationRoutes(app, context);
  peripheralElectrodeRoutes(app, context);
  peripheralDeviceRoutes(app, context);
}

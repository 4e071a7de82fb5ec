/**
 * The guide paths of docs/system-paths.md §Guide paths (impedance sessions, history, snapshots, head map,
 * optimize/adjust, schedules, preparation, diagnosis, motor control, LED visualization, hardware
 * variants), on the device's `Headset` interface. Values in kΩ, electrode names in the mixed
 * 10-20 case. `createApp` registers {@link guidesPlugin} with the same options as the /system
 * plugin.
 */
import type { FastifyInstance } from 'fastify';
import { mixedCaseMap } from '../../core/electrodes.js';
import { ImpedanceStore } from '../../device/impedance-store.js';
import { jobsFor } from '../../device/jobs.js';
import type { SystemPluginOptions } from '../plugin-options.js';
import { SocketFanout } from '../../runtime/socket-fanout.js';
import { currentConfig, type GuidesContext } from '../../guides/context.js';
import { historyRoutes } from './history.js';
import { impedanceSessionRoutes } from './impedance.js';
import { ImpedanceSessions } from '../../guides/impedance-sessions.js';
import { LatestImpedance } from '../../guides/latest-impedance.js';
import { ledVisualizationRoutes } from './led-visualization.js';
import { LedVisualization } from '../../guides/led-visualization.js';
import { mapRoutes } from './map.js';
import { MotorLocks } from '../../guides/motor-locks.js';
import { guideMotorRoutes } from './motors.js';
import { optimizeRoutes } from './optimize.js';
import { peripheralDeviceRoutes } from './peripheral-devices.js';
import { peripheralElectrodeRoutes } from './peripheral-electrodes.js';
import { preparationRoutes } from './preparation.js';
import { scheduleRoutes } from './schedule-routes.js';
import { ImpedanceSchedules } from '../../guides/schedules.js';

/** The same options as {@link SystemPluginOptions}; only `device`, `events`, `db` and `settings` are used. */
export type GuidesPluginOptions = Pick<SystemPluginOptions, 'device' | 'events' | 'db' | 'settings'> &
  Partial<SystemPluginOptions>;

export function guidesPlugin(app: FastifyInstance, options: GuidesPluginOptions): void {
  const cleanups: (() => void)[] = [];
  const { settings } = options;
  const hub = options.events;
  const store = new ImpedanceStore(options.db);
  const latest = new LatestImpedance(hub);
  const live = new SocketFanout();
  const jobs = jobsFor(options.device);
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
    jobs,
    config: () => currentConfig(settings),
    onClose: (cleanup) => cleanups.push(cleanup),
  };
  const schedules = new ImpedanceSchedules(context);
  app.addHook('onClose', async () => {
    // Running operations stop with the service (their motors are stopped where they are).
    await jobs.close();
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
  ledVisualizationRoutes(app, new LedVisualization(context));
  peripheralElectrodeRoutes(app, context);
  peripheralDeviceRoutes(app, context);
}

/**
 * The guide paths of docs/system-paths.md §Guide paths (impedance sessions, history, snapshots, head map,
 * optimize/adjust, schedules, preparation, diagnosis, motor control, LED visualization, hardware
 * variants), on the device's `Headset` interface. Values in kΩ, electrode names in the mixed
 * 10-20 case. The service registers {@link guidesPlugin} among `createApp`'s extra plugins.
 */
import type { FastifyInstance } from 'fastify';
import type { SocketFanout } from '../../streams/runtime/socket-fanout.js';
import type { GuidesContext } from '../../guides/context.js';
import type { LedVisualization } from '../../guides/led-visualization.js';
import type { ImpedanceSchedules } from '../../guides/schedules.js';
import { historyRoutes } from './history.js';
import { impedanceSessionRoutes } from './impedance.js';
import { ledVisualizationRoutes } from './led-visualization.js';
import { mapRoutes } from './map.js';
import { guideMotorRoutes } from './motors.js';
import { optimizeRoutes } from './optimize.js';
import { peripheralDeviceRoutes } from './peripheral-devices.js';
import { peripheralElectrodeRoutes } from './peripheral-electrodes.js';
import { preparationRoutes } from './preparation.js';
import { scheduleRoutes } from './schedule-routes.js';
import { refuseMissingParts } from '../part-routes.js';

/**
 * The guide services the routes call, built by the service's composition root (src/service/services.ts)
 * and handed to {@link guidesPlugin}; the plugin builds nothing.
 */
export interface GuidesPluginOptions {
  /** The device, hub, stores, sessions, locks and jobs every guide route shares. */
  readonly context: GuidesContext;
  readonly schedules: ImpedanceSchedules;
  readonly ledVisualization: LedVisualization;
  /** The clients of WebSocket /electrodes/impedance/live (continuous impedance sessions' readings). */
  readonly impedanceSockets: SocketFanout;
}

export function guidesPlugin(app: FastifyInstance, options: GuidesPluginOptions): void {
  const { context } = options;
  refuseMissingParts(app, context.device);
  impedanceSessionRoutes(app, context, options.impedanceSockets);
  historyRoutes(app, context);
  mapRoutes(app, context);
  optimizeRoutes(app, context);
  scheduleRoutes(app, options.schedules);
  preparationRoutes(app, context);
  guideMotorRoutes(app, context);
  ledVisualizationRoutes(app, options.ledVisualization);
  peripheralElectrodeRoutes(app, context);
  peripheralDeviceRoutes(app, context);
}

/**
 * The maker's SDK surface (instinct-py; docs/instinct-sdk.md): its default paths, a thin adapter
 * over the services of the reference paths (stream manager, device, settings, config entries).
 * `createApp` registers {@link instinctPlugin} among the extra plugins.
 */
import type { FastifyInstance } from 'fastify';
import type { ConfigEntries } from '../../store/config-entries.js';
import type { Headset } from '../../device/headset.js';
import type { SettingsStore } from '../../store/settings-store.js';
import type { StreamManager } from '../../streams/manager.js';
import type { EventHub } from '../../events/hub.js';
import { instinctConfigRoutes } from './config-store.js';
import { instinctDeviceRoutes } from './device.js';
import { instinctStreamRoutes } from './streams.js';
import { refuseMissingParts } from '../part-routes.js';

export interface InstinctPluginOptions {
  readonly manager: StreamManager;
  readonly device: Headset;
  readonly settings: SettingsStore;
  readonly entries: ConfigEntries;
  /** The service's event hub: a transition that fails after its answer is announced there. */
  readonly events?: EventHub;
}

export function instinctPlugin(app: FastifyInstance, options: InstinctPluginOptions): void {
  refuseMissingParts(app, options.device);
  instinctStreamRoutes(app, options.manager, (_id, message) => {
    options.events?.system('stream_failed', 'error', message);
  });
  instinctDeviceRoutes(app, options);
  instinctConfigRoutes(app, options.entries);
}

/**
 * The maker's SDK surface (instinct-py; docs/instinct-sdk.md): its default paths, a thin adapter
 * over the services of the reference paths (stream manager, device, settings, config entries).
 * `createApp` registers {@link instinctPlugin} among the extra plugins.
 */
import type { FastifyInstance } from 'fastify';
import type { ConfigEntries } from '../../platform/store/config-entries.js';
import type { Headset } from '../../device/headset.js';
import type { SettingsStore } from '../../platform/store/settings-store.js';
import type { StreamManager } from '../../streams/manager.js';
import { type LateFailureSink, signalPolicy } from '../stream-signal.js';
import { instinctConfigRoutes } from './config-store.js';
import { instinctDeviceRoutes } from './device.js';
import { instinctStreamRoutes } from './streams.js';
import { refuseMissingParts } from '../part-routes.js';

export interface InstinctPluginOptions {
  readonly manager: StreamManager;
  readonly device: Headset;
  readonly settings: SettingsStore;
  readonly entries: ConfigEntries;
  /** Where a stream transition that fails after its answer is announced (the reference paths' sink). */
  readonly onLateFailure?: LateFailureSink;
  /** How long a stream signal waits (default SIGNAL_WAIT_MS, as on the reference paths). */
  readonly signalWaitMs?: number;
}

export function instinctPlugin(app: FastifyInstance, options: InstinctPluginOptions): void {
  refuseMissingParts(app, options.device);
  instinctStreamRoutes(app, options.manager, signalPolicy(options));
  instinctDeviceRoutes(app, options.device, options.settings);
  instinctConfigRoutes(app, options.entries);
}

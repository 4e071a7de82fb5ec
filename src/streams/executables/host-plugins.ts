/**
 * This service's executables as the runtime's host takes them (streams/runtime/host.ts
 * `StreamHostPlugins`): the built-ins and the resolver of external programs. Plugged in by the
 * stream worker's entry (stream-host.ts) and by the device's thread, which hosts the streams that
 * read the device (device/production/thread-main.ts).
 */
import type { StreamHostPlugins } from '../runtime/host.js';
import { IMPLEMENTED_BUILTINS, loadBuiltinFactory } from './factories.js';
import { createFactoryResolver } from './resolve-node.js';

export const STREAM_HOST_PLUGINS: StreamHostPlugins = {
  warmUp: () => {
    // A built-in that fails to load here fails again, with its message, when a node of it starts.
    for (const name of IMPLEMENTED_BUILTINS) void loadBuiltinFactory(name).catch(() => undefined);
  },
  createResolver: (options) => createFactoryResolver(options),
};

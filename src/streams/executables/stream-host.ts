/**
 * The entry module of a stream's worker thread: the runtime's host (streams/runtime/host.ts) with this
 * service's executables plugged in, the way a media framework's core is handed its plugins. The
 * runtime itself imports no executable; WorkerRuntime is told to start this module
 * (STREAM_HOST_ENTRY) by whoever builds it.
 */
import { runStreamHost } from '../runtime/host.js';
import { IMPLEMENTED_BUILTINS, loadBuiltinFactory } from './factories.js';
import { createFactoryResolver } from './resolve-node.js';

runStreamHost({
  warmUp: () => {
    // A built-in that fails to load here fails again, with its message, when a node of it starts.
    for (const name of IMPLEMENTED_BUILTINS) void loadBuiltinFactory(name).catch(() => undefined);
  },
  createResolver: (options) => createFactoryResolver(options),
});

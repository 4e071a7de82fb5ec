/**
 * The entry module of a stream's worker thread: the runtime's host (streams/runtime/host.ts) with this
 * service's executables plugged in (host-plugins.ts), the way a media framework's core is handed its
 * plugins. The runtime itself imports no executable; WorkerRuntime is told to start this module
 * (STREAM_HOST_ENTRY) by whoever builds it.
 */
import { runStreamHost } from '../runtime/host.js';
import { STREAM_HOST_PLUGINS } from './host-plugins.js';

runStreamHost(STREAM_HOST_PLUGINS);

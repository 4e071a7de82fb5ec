/**
 * The entry module of the device's thread as the service runs it: the device's production
 * (device/production/thread-main.ts) with the runtime's host of streams plugged in, so that the
 * streams that read the device run in the thread that makes its frames (docs/architecture.md
 * §Data plane). Composed here, since the device does not import the runtime.
 */
import { hostStreamsWith } from '../device/production/thread-main.js';
import { STREAM_HOST_PLUGINS } from '../streams/executables/host-plugins.js';
import { hostStreamsOn } from '../streams/runtime/host.js';
import type { HostBoot } from '../streams/runtime/thread-messages.js';

hostStreamsWith((port, boot, frames) => {
  // The runtime's own boot (streams/runtime/stream-worker.ts), passed through the device's thread as it is.
  hostStreamsOn(port, boot as HostBoot, STREAM_HOST_PLUGINS, frames);
});

/**
 * Opens a live kind's headset where its driver is to be read: in the device's thread when the
 * service gives one (`deviceThread`, production/live-thread-driver.ts: the driver is made, opened
 * and framed there, from the kind's name and argument), else on this thread (the tests, a device
 * run from the TypeScript sources, where no thread can start: service/device-thread-entry.ts).
 */
import type { Headset } from '../headset.js';
import type { DeviceOpenContext, LiveDriverContext } from '../kind.js';
import type { LiveEegDriver } from './driver.js';

export async function openLiveDevice(
  kind: {
    readonly name: string;
    readonly driver: (argument: string, context: LiveDriverContext) => Promise<LiveEegDriver>;
  },
  argument: string,
  { lsl, log, deviceThread }: DeviceOpenContext,
): Promise<Headset> {
  if (deviceThread !== undefined) {
    const { openThreadLiveHeadset } = await import('../production/live-thread-driver.js');
    return openThreadLiveHeadset(
      deviceThread,
      { kind: 'live', device: kind.name, argument, ...(lsl === undefined ? {} : { lsl }) },
      log,
    );
  }
  const [{ openLiveHeadset }, driver] = await Promise.all([
    import('./live-headset.js'),
    kind.driver(argument, { ...(lsl === undefined ? {} : { lsl }), log }),
  ]);
  return openLiveHeadset(driver);
}

/** `--device lsl:QUERY`: a stream of any Lab Streaming Layer outlet (docs/devices.md). */
import type { DeviceKind, LiveDriverContext } from '../kind.js';

/** The driver, from plain data: the device's thread makes it too (production/thread-live.ts). */
async function driver(argument: string, { lsl, log }: LiveDriverContext) {
  const { createLslDriver } = await import('./lsl-driver.js');
  return createLslDriver(argument, { ...(lsl === undefined ? {} : { network: lsl }), log });
}

export const LSL_KIND: DeviceKind = {
  name: 'lsl',
  // `lsl` and `lsl:` alone: the driver's default query, type=EEG.
  pattern: 'lsl(:.*)?',
  forms: [{ value: 'lsl:QUERY', says: 'an LSL stream, e.g. lsl:type=EEG; lsl alone is lsl:type=EEG' }],
  live: true,
  driver,
  async open(argument, context) {
    const { openLiveDevice } = await import('../live/open-live-device.js');
    return openLiveDevice({ name: 'lsl', driver }, argument, context);
  },
};

/** `--device lsl:QUERY`: a stream of any Lab Streaming Layer outlet (docs/devices.md). */
import type { DeviceKind } from '../kind.js';

export const LSL_KIND: DeviceKind = {
  name: 'lsl',
  // `lsl` and `lsl:` alone: the driver's default query, type=EEG.
  pattern: 'lsl(:.*)?',
  forms: [{ value: 'lsl:QUERY', says: 'an LSL stream, e.g. lsl:type=EEG; lsl alone is lsl:type=EEG' }],
  live: true,
  async open(argument, { lsl, log }) {
    const [{ openLiveHeadset }, { createLslDriver }] = await Promise.all([
      import('../live/live-headset.js'),
      import('./lsl-driver.js'),
    ]);
    return openLiveHeadset(
      createLslDriver(argument, { ...(lsl === undefined ? {} : { network: lsl }), log }),
    );
  },
};

/** `--device replay:FILE`: a recording played back (docs/device.md §Replay device). */
import type { DeviceKind } from '../kind.js';

export const REPLAY_KIND: DeviceKind = {
  name: 'replay',
  pattern: 'replay:.+',
  forms: [{ value: 'replay:FILE', says: 'an EDF/BDF file played back' }],
  missingArgument:
    'names no file: give the EDF/BDF file to replay, replay:FILE, e.g. replay:/data/session.bdf',
  live: false,
  async open(argument, { seed, deviceThread }) {
    const { createReplayHeadset } = await import('./replay-headset.js');
    return createReplayHeadset(argument, {
      ...(seed === undefined ? {} : { seed }),
      ...(deviceThread === undefined ? {} : { deviceThread }),
    });
  },
};

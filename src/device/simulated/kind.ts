/** `--device simulated` and `simulated:seated`: the simulated headset (docs/device.md). */
import type { DeviceKind } from '../kind.js';

export const SIMULATED_KIND: DeviceKind = {
  name: 'simulated',
  pattern: 'simulated|simulated:seated',
  forms: [
    { value: 'simulated', says: 'electrodes retracted, as a headset is put on' },
    { value: 'simulated:seated', says: 'worn, every electrode pressed onto the scalp' },
  ],
  live: false,
  async open(argument, { seed, deviceThread }) {
    const { createSimulatedHeadset } = await import('./simulated-headset.js');
    const seeded = {
      ...(seed === undefined ? {} : { seed }),
      ...(deviceThread === undefined ? {} : { deviceThread }),
    };
    return createSimulatedHeadset(
      argument === 'seated' ? { ...seeded, initialMotorPosition: 'scalp' } : seeded,
    );
  },
};

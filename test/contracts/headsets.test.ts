/**
 * The Headset contract, run against the simulated headset, the replay device, and the live headset
 * on a fake amplifier: one with a settable gain and an impedance meter (as a Cyton), one with
 * neither (as an LSL stream). The fake paces its blocks of 5 rows on the contract's clock, so blocks
 * and the 3-row frames of 250 Hz never line up.
 */
import { openLiveHeadset } from '../../src/device/live/live-headset.js';
import { createReplayHeadset } from '../../src/device/replay/index.js';
import { createSimulatedHeadset } from '../../src/device/simulated/index.js';
import { FakeLiveDriver } from '../support/fake-live-driver.js';
import { fixture } from '../formats/fixtures.js';
import { headsetContract } from './headset-contract.js';

headsetContract('simulated', (clock) =>
  createSimulatedHeadset({ seed: 5, clock, initialMotorPosition: 'scalp' }),
);
headsetContract('replay', (clock) =>
  createReplayHeadset(fixture('S002R01.edf'), { clock, initialMotorPosition: 'scalp' }),
);
headsetContract('live, gain and impedance', (clock) =>
  openLiveHeadset(new FakeLiveDriver({ clock, blockRows: 5, gain: true, impedanceMs: 80 }), { clock }),
);
headsetContract('live, EEG only', (clock) =>
  openLiveHeadset(new FakeLiveDriver({ clock, blockRows: 5 }), { clock }),
);

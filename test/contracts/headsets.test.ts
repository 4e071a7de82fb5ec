/** The Headset contract, run against the simulated headset and the replay device. */
import { createReplayHeadset } from '../../src/device/replay/index.js';
import { createSimulatedHeadset } from '../../src/device/simulated/index.js';
import { fixture } from '../formats/fixtures.js';
import { headsetContract } from './headset-contract.js';

headsetContract('simulated', (clock) =>
  createSimulatedHeadset({ seed: 5, clock, initialMotorPosition: 'scalp' }),
);
headsetContract('replay', (clock) =>
  createReplayHeadset(fixture('S002R01.edf'), { clock, initialMotorPosition: 'scalp' }),
);

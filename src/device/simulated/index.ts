/** The simulated headset and the pieces a replay device reuses. */
export {
  createSimulatedHeadset,
  SimulatedHeadset,
  type SimulatedHeadsetOptions,
  type SimulationControls,
} from './simulated-headset.js';
export { SimulatedEegSource } from './eeg.js';
export { Random } from './random.js';
export { BUS_COMMAND, BUS_STATUS, PACKET_TYPE, PERIPHERAL } from './bus.js';
export { MOTOR_SPEED } from './motors.js';
export { FORCE_LIMIT, FORCE_PER_STEP, CONTACT_POSITION_RANGE } from './contact.js';

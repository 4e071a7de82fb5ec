/** The LSL device's driver (`--device lsl:<query>`), for the live headset (docs/devices.md §Lab Streaming Layer). */
export {
  createLslDriver,
  LslDriver,
  type LslDriverOptions,
  type LslDriverStatus,
  LslUnavailableError,
} from './lsl-driver.js';
export { type LslArgument, parseLslArgument } from './argument.js';
export type { LslChannel } from './channels.js';

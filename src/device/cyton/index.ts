/**
 * The OpenBCI Cyton device, for the composer: `createCytonDriver(argument, openLink)` makes the
 * live driver for `--device cyton:<serial path>[?channels=...&gain=...]` over the links `openLink`
 * opens (the dongle's port: ./link.ts `openCytonPort`; the tests' own).
 * `parseCytonArgument` checks the argument alone (at start-up, before any port is opened).
 */
import { CytonDriver, type CytonDriverOptions } from './driver.js';
import type { SerialLinkOpener } from './link.js';

export { CytonDriver, type CytonDriverOptions } from './driver.js';
export type { SerialLink, SerialLinkOpener } from './link.js';
export { CYTON_MONTAGE, type CytonArgument, DAISY_MONTAGE, parseCytonArgument } from './montage.js';

/** The driver for `argument` (`cyton:/dev/ttyUSB0?channels=Fp1,...`), over links `openLink` opens. */
export function createCytonDriver(
  argument: string,
  openLink: SerialLinkOpener,
  options?: CytonDriverOptions,
): CytonDriver {
  return new CytonDriver(argument, openLink, options);
}

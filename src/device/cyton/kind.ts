/** `--device cyton:SERIAL_PORT`: an OpenBCI Cyton board through its USB dongle (docs/devices.md). */
import type { DeviceKind } from '../kind.js';

/** The driver, from plain data: the device's thread makes it (production/thread-live.ts) and reads the port there. */
async function driver(argument: string) {
  const [{ CytonDriver }, { openCytonPort }] = await Promise.all([
    import('./driver.js'),
    import('./link.js'),
  ]);
  return new CytonDriver(argument, openCytonPort);
}

export const CYTON_KIND: DeviceKind = {
  name: 'cyton',
  pattern: 'cyton:.+',
  forms: [{ value: 'cyton:SERIAL_PORT', says: 'an OpenBCI Cyton board, e.g. cyton:/dev/ttyUSB0' }],
  missingArgument:
    "names no serial port: give the port of the Cyton's USB dongle, cyton:SERIAL_PORT, e.g. cyton:/dev/ttyUSB0 (Linux) or cyton:/dev/cu.usbserial-XXXXXXXX (macOS)",
  live: true,
  driver,
  async open(argument, context) {
    const { openLiveDevice } = await import('../live/open-live-device.js');
    return openLiveDevice({ name: 'cyton', driver }, argument, context);
  },
};

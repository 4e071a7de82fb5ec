/** `--device cyton:SERIAL_PORT`: an OpenBCI Cyton board through its USB dongle (docs/devices.md). */
import { HeadsetdError } from '../../core/errors.js';
import type { DeviceKind } from '../kind.js';

export const CYTON_KIND: DeviceKind = {
  name: 'cyton',
  pattern: 'cyton:.+',
  forms: [{ value: 'cyton:SERIAL_PORT', says: 'an OpenBCI Cyton board, e.g. cyton:/dev/ttyUSB0' }],
  missingArgument:
    "names no serial port: give the port of the Cyton's USB dongle, cyton:SERIAL_PORT, e.g. cyton:/dev/ttyUSB0 (Linux), cyton:/dev/tty.usbserial-XXXXXXXX (macOS) or cyton:COM3 (Windows)",
  live: true,
  async open(argument, { openSerialLink }) {
    if (openSerialLink === undefined)
      throw new HeadsetdError('device_unavailable', 'this build of headsetd opens no serial port');
    const [{ openLiveHeadset }, { CytonDriver }] = await Promise.all([
      import('../live/live-headset.js'),
      import('./driver.js'),
    ]);
    return openLiveHeadset(new CytonDriver(argument, openSerialLink));
  },
};

/**
 * The LSL device against liblsl 1.16 outlets (lsl-device-suite.ts) and its clock against liblsl
 * 1.16's inlet (lsl-device-time-suite.ts); skipped without HEADSETD_ORACLES.
 */
import { lslDeviceSuite } from './lsl-device-suite.js';
import { lslDeviceTimeSuite } from './lsl-device-time-suite.js';

lslDeviceSuite('1.16', 36572);
lslDeviceTimeSuite('1.16', 36572);

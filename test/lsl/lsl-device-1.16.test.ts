/** The LSL device against liblsl 1.16 outlets (lsl-device-suite.ts); skipped without HEADSETD_ORACLES. */
import { lslDeviceSuite } from './lsl-device-suite.js';

lslDeviceSuite('1.16', 36572);

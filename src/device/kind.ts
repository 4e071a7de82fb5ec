/**
 * A kind of device `--device` can name (the simulated headset, a replay, the Cyton, LSL): the
 * forms its setting takes, the values it accepts and how it opens its headset. The kinds are listed
 * once, in ./kinds.ts.
 */
import type { LslNetwork } from '../lsl/network.js';
import type { Headset } from './headset.js';
import type { LiveEegDriver } from './live/driver.js';

/** One way to write the setting, as messages and the setting's description show it. */
export interface DeviceForm {
  /** `cyton:SERIAL_PORT`. */
  readonly value: string;
  /** What it is, for a person: `an OpenBCI Cyton board, e.g. cyton:/dev/ttyUSB0`. */
  readonly says: string;
}

/** What opening a device is handed besides the text after its kind. */
export interface DeviceOpenContext {
  /** Seed of the simulated parts, for repeatable signals. */
  readonly seed?: number;
  /** Where a driver says what a person should see (a reconnection, a reset). */
  readonly log: (message: string) => void;
  /** Where LSL may look for streams (the service's `lsl` settings); default: this machine only. */
  readonly lsl?: LslNetwork;
  /**
   * The entry module of the device's thread (service/device-thread-entry.ts), where a device
   * that makes its samples in software produces its frames, and a live kind with a `driver` reads
   * and frames its amplifier; absent: on the main thread.
   */
  readonly deviceThread?: URL;
}

/** What a live driver is handed where it is made (the device's thread, or the main thread). */
export interface LiveDriverContext {
  /** Where LSL may look for streams; default: this machine only. */
  readonly lsl?: LslNetwork;
  /** Where the driver says what a person should see. */
  readonly log: (message: string) => void;
}

export interface DeviceKind {
  /** The setting's text before the colon (`cyton`), or all of it for a kind without argument. */
  readonly name: string;
  /** A regular expression (source, unanchored) of the values of this kind: `cyton:.+`. */
  readonly pattern: string;
  readonly forms: readonly DeviceForm[];
  /** What to say of `<name>:` with nothing after it, when the kind needs something there. */
  readonly missingArgument?: string;
  /** A live amplifier: a failure to open it is the device's (`device_unavailable`), named so. */
  readonly live: boolean;
  /** Opens the headset; `argument` is the text after `<name>:` ('' when there is none). */
  open(argument: string, context: DeviceOpenContext): Promise<Headset>;
  /**
   * A live kind whose driver the device's thread can hold: the driver for `argument`, not yet
   * open, made from plain data, so that the thread makes it (production/thread-live.ts) and reads
   * the amplifier there.
   */
  readonly driver?: (argument: string, context: LiveDriverContext) => Promise<LiveEegDriver>;
}

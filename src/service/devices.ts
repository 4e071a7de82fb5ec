/**
 * The device named by `--device`, as a Headset (docs/devices.md): the simulated headset, a
 * recording played back, or a live amplifier through its driver. The live drivers are registered
 * here by prefix (`cyton:/dev/ttyUSB0`, `lsl:type=EEG`); a live device is opened (port, stream)
 * before the service listens, so a service that starts has its amplifier.
 */
import type { Logger } from 'pino';
import type { Headset } from '../device/headset.js';
import type { LiveEegDriver } from '../device/live/driver.js';
import { openLiveHeadset } from '../device/live/live-headset.js';
import { createCytonDriver } from '../device/cyton/index.js';
import { createLslDriver } from '../device/lsl/index.js';
import type { LslNetwork } from '../lsl/network.js';
import { openSerialLink } from './serial-link.js';
import { createReplayHeadset } from '../device/replay/index.js';
import { createSimulatedHeadset } from '../device/simulated/index.js';
import { errorMessage } from '../core/error-message.js';
import { HeadsetdError, isHeadsetdError } from '../core/errors.js';

/** The prefixes of live amplifiers `--device` accepts (config.ts's pattern names the same). */
export const LIVE_DEVICE_PREFIXES = ['cyton', 'lsl'] as const;

/** What a driver is handed besides its argument. */
export interface LiveDriverOptions {
  /** The service's log, for what the driver wants a person to see (a reconnection, a reset). */
  readonly logger: Logger;
  /** Where LSL may look for streams (the service's `lsl` settings); default: this machine only. */
  readonly lsl?: LslNetwork;
}

/**
 * Builds a driver from what follows the prefix in `--device` (`/dev/ttyUSB0`, `type=EEG`). It
 * must not touch the wire yet: the service calls `open()`.
 */
export type LiveDriverFactory = (argument: string, options: LiveDriverOptions) => LiveEegDriver;

const LIVE_DRIVERS = new Map<string, LiveDriverFactory>();

/**
 * Makes `--device <prefix>:<argument>` open a live amplifier through `factory` (`undefined`
 * removes the prefix's driver, as in a build without it). Answers a function that puts back what
 * the prefix had before (for tests).
 */
export function registerLiveDriver(prefix: string, factory: LiveDriverFactory | undefined): () => void {
  const before = LIVE_DRIVERS.get(prefix);
  if (factory === undefined) LIVE_DRIVERS.delete(prefix);
  else LIVE_DRIVERS.set(prefix, factory);
  return () => {
    if (before === undefined) LIVE_DRIVERS.delete(prefix);
    else LIVE_DRIVERS.set(prefix, before);
  };
}

// The drivers of this build, by prefix. The Cyton's port is opened through serialport
// (serial-link.ts, loaded on first use), which device/ may not import; the LSL driver looks for
// its stream where the service's LSL settings say.
registerLiveDriver('cyton', (argument) => createCytonDriver(argument, openSerialLink));
registerLiveDriver('lsl', (argument, options) =>
  createLslDriver(argument, {
    ...(options.lsl === undefined ? {} : { network: options.lsl }),
    log: (message) => {
      options.logger.info(message);
    },
  }),
);

export interface OpenDeviceOptions {
  readonly logger: Logger;
  readonly lsl?: LslNetwork;
}

/**
 * The headset named by `device` (`--device`): the simulated one (electrodes retracted, as a
 * headset is put on; or with `:seated`, worn with every electrode already pressed onto the scalp,
 * for app development), a recording played back, or a live amplifier, opened. Throws a clear error
 * (the start-up fails) for a device that is unknown, whose driver this build lacks, or that cannot
 * be opened.
 */
export async function openDevice(
  device: string,
  seed: number | undefined,
  options: OpenDeviceOptions,
): Promise<Headset> {
  const seeded = seed === undefined ? {} : { seed };
  if (device === 'simulated') return createSimulatedHeadset(seeded);
  if (device === 'simulated:seated') {
    return createSimulatedHeadset({ ...seeded, initialMotorPosition: 'scalp' });
  }
  if (device.startsWith('replay:')) return createReplayHeadset(device.slice('replay:'.length), seeded);
  const colon = device.indexOf(':');
  const prefix = colon < 0 ? device : device.slice(0, colon);
  const argument = colon < 0 ? '' : device.slice(colon + 1);
  const factory = LIVE_DRIVERS.get(prefix);
  const known = factory !== undefined || (LIVE_DEVICE_PREFIXES as readonly string[]).includes(prefix);
  // `lsl` and `lsl:` alone: the LSL driver's default query (type=EEG).
  if (!known || (argument === '' && prefix !== 'lsl')) {
    throw new HeadsetdError(
      'invalid_request',
      `The device '${device}' is unknown; use simulated, simulated:seated, replay:FILE, cyton:SERIAL_PORT or lsl:QUERY.`,
    );
  }
  if (factory === undefined) {
    const built = [...LIVE_DRIVERS.keys()];
    throw new HeadsetdError(
      'device_unavailable',
      `The device '${device}' needs the ${prefix} driver, which this build of headsetd does not have (${built.length === 0 ? 'it has no live driver' : `it has ${built.join(', ')}`}); use simulated, simulated:seated or replay:FILE.`,
    );
  }
  try {
    return await openLiveHeadset(
      factory(argument, {
        logger: options.logger,
        ...(options.lsl === undefined ? {} : { lsl: options.lsl }),
      }),
    );
  } catch (error) {
    const message = `The device '${device}' cannot be opened: ${errorMessage(error)}`;
    throw isHeadsetdError(error)
      ? new HeadsetdError(error.code, message, error.details)
      : new HeadsetdError('device_unavailable', message);
  }
}

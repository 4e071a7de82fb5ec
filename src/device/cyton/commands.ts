/**
 * The two commands the Cyton driver waits on (./driver.ts), over one session (./session.ts): the
 * reset with its banner, and one channel's settings with the board's answer; and the check that a
 * board answering after a reconnection is the one headsetd started with.
 */
import { HeadsetdError } from '../../core/errors.js';
import { DeviceUnavailableError } from '../errors.js';
import {
  type ChannelSettings,
  channelSettingsCommand,
  type CytonBanner,
  isBanner,
  isFailure,
  parseBanner,
  RESET,
  STOP,
} from './protocol.js';
import type { CytonSession } from './session.js';

/** `s` then `v`: the board stops, resets to its defaults and prints its banner. */
export async function resetBoard(
  session: CytonSession,
  path: string,
  timeoutMs: number,
): Promise<CytonBanner> {
  await session.write(STOP);
  const text = await session.ask(
    RESET,
    (answer) => isBanner(answer) || isFailure(answer),
    timeoutMs,
    'the reset command (v) with its banner ending in $$$',
  );
  if (isFailure(text)) {
    // The dongle answers for a board it cannot reach ("Communications timeout - Device failed to poll Host").
    throw new DeviceUnavailableError(
      'disconnected',
      `The dongle on ${path} answered "${text.replace(/\$\$\$$/, '').trim()}": the Cyton is off, or on another radio channel. Switch the board on (PC position) and check the dongle's radio channel.`,
    );
  }
  return parseBanner(text);
}

/** Sets one channel; when the board is not streaming, waits for its answer. */
export async function sendChannelSettings(
  session: CytonSession,
  channel: number,
  settings: ChannelSettings,
  timeoutMs: number,
): Promise<void> {
  const command = channelSettingsCommand(channel, settings);
  const answer = await session.ask(command, () => true, timeoutMs, `the channel settings ${command}`);
  if (isFailure(answer)) {
    throw new HeadsetdError(
      'device_unavailable',
      `The Cyton refused ${command}: ${answer.replace(/\$\$\$$/, '').trim()}`,
    );
  }
}

/** A board answered on the path that is not the board headsetd started with (its channels differ). */
export class BoardChangedError extends DeviceUnavailableError {
  constructor(message: string) {
    super('disconnected', message);
  }
}

/** Throws `BoardChangedError` naming the change when `now` has a Daisy and `before` had none, or the reverse. */
export function checkSameBoard(before: CytonBanner, now: CytonBanner, path: string): void {
  if (before.daisy === now.daisy) return;
  const started = before.daisy ? '16 channels at 125 Hz' : '8 channels at 250 Hz';
  throw new BoardChangedError(
    `The board on ${path} now ${now.daisy ? 'claims' : 'lacks'} a Daisy module (its reset banner ${now.daisy ? 'lists' : 'no longer lists'} the Daisy's ADS1299), but headsetd started with ${started}; the channels cannot change while headsetd runs. Plug back the board it started with, or restart headsetd.`,
  );
}

/**
 * The lead-off impedance measurement, one channel at a time, as OpenBCI's GUI runs it:
 * 1. the channel is set to gain 1, normal input, in bias, SRB2 and SRB1 disconnected
 *    (`x<ch>0001 00X`), and the lead-off current switched on at the electrode's input (`z<ch>01Z`
 *    for the N input when the channel was on SRB2, the usual montage with the electrodes on the N
 *    pins and the reference on SRB2; `z<ch>10Z` for the P input otherwise);
 * 2. the board streams; the first `settleMs` of rows are dropped (the step of switching the
 *    current on), the next `windowMs` are kept, each at its row number (a row lost inside the
 *    window leaves a hole in time rather than shifting the sine's phase);
 * 3. the stream stops, the channel's own settings are sent back and the current switched off
 *    (`z<ch>00Z`), whether the measurement succeeded, failed or was cancelled;
 * 4. Z = √2·σ·1e-6 / 6 nA − 2.2 kΩ (./impedance.ts).
 */
import { HeadsetdError } from '../../core/errors.js';
import type { Electrode, ElectrodeMap } from '../../core/electrodes.js';
import { DeviceUnavailableError } from '../errors.js';
import { type LiveChannel, liveChannelElectrode } from '../live/driver.js';
import type { RowTap } from './blocks.js';
import { leadOffImpedance } from './impedance.js';
import { type ChannelSettings, leadOffCommand } from './protocol.js';

/** What the measurement needs of the driver. */
export interface LeadOffPort {
  readonly channels: readonly LiveChannel[];
  readonly settings: readonly ChannelSettings[];
  readonly rate: number;
  readonly settleMs: number;
  readonly windowMs: number;
  readonly answerTimeoutMs: number;
  setChannel(channel: number, settings: ChannelSettings): Promise<void>;
  /** Records `settings` as the channel's without sending them (the board is gone; a reconnection sends them). */
  remember(channel: number, settings: ChannelSettings): void;
  /** Sends a command and waits for its answer (the board is not streaming). */
  command(text: string): Promise<string>;
  /** Starts (`b`, rows to `tap`) or stops (`s`) the stream. */
  stream(on: boolean, tap?: RowTap): Promise<void>;
}

const MEASURING: ChannelSettings = {
  powerDown: false,
  gain: 1,
  input: 0,
  bias: true,
  srb2: false,
  srb1: false,
};

function cancelled(): HeadsetdError {
  return new HeadsetdError(
    'operation_cancelled',
    'The impedance measurement was cancelled; the channels were restored.',
  );
}

/**
 * Measures the electrodes asked for that a channel records; the others (not in the montage, CMS,
 * DRL) are left out of the answer.
 */
export async function measureLeadOff(
  port: LeadOffPort,
  electrodes: readonly Electrode[],
  signal?: AbortSignal,
): Promise<ElectrodeMap<number>> {
  const result: ElectrodeMap<number> = {};
  for (const electrode of electrodes) {
    const channel = port.channels.findIndex((c) => liveChannelElectrode(c) === electrode);
    if (channel < 0) continue;
    if (signal?.aborted) throw cancelled();
    result[electrode] = await measureChannel(port, channel, signal);
  }
  return result;
}

async function measureChannel(port: LeadOffPort, channel: number, signal?: AbortSignal): Promise<number> {
  const saved = port.settings[channel] as ChannelSettings;
  const onN = saved.srb2;
  const settleRows = Math.round((port.settleMs / 1000) * port.rate);
  const windowRows = Math.max(8, Math.round((port.windowMs / 1000) * port.rate));
  const values: number[] = [];
  // Each value's row number: rows lost inside the window (the radio) are placed at their true time.
  const indices: number[] = [];
  try {
    await port.setChannel(channel, MEASURING);
    await port.command(leadOffCommand(channel, !onN, onN));
    let seen = 0;
    const done = new Promise<void>((resolve, reject) => {
      const limit = port.settleMs + port.windowMs + 2 * port.answerTimeoutMs + 1000;
      const timer = setTimeout(() => {
        reject(
          new DeviceUnavailableError(
            'disconnected',
            `The Cyton stopped sending samples during the impedance measurement of channel ${channel + 1}.`,
          ),
        );
      }, limit);
      const abort = (): void => {
        clearTimeout(timer);
        reject(cancelled());
      };
      signal?.addEventListener('abort', abort, { once: true });
      void port.stream(true, (row, microvolts) => {
        seen++;
        if (seen <= settleRows || values.length >= windowRows) return;
        if (indices.length > 0 && row.index <= (indices[indices.length - 1] as number)) {
          // The board restarted its count: the sine's phase is unknown across it; start the window again.
          values.length = 0;
          indices.length = 0;
        }
        values.push(microvolts[channel] as number);
        indices.push(row.index);
        if (values.length >= windowRows) {
          clearTimeout(timer);
          signal?.removeEventListener('abort', abort);
          resolve();
        }
      });
    });
    await done;
  } finally {
    await restore(port, channel, saved);
  }
  return leadOffImpedance(values, port.rate, indices);
}

/**
 * Stops the stream, gives the channel its own settings back and switches the current off. When the
 * board cannot be reached, the driver still records the channel's own settings, which it sends
 * when the board answers again (a reset also switches the lead-off current off).
 */
async function restore(port: LeadOffPort, channel: number, saved: ChannelSettings): Promise<void> {
  try {
    await port.stream(false);
    await port.setChannel(channel, saved);
    await port.command(leadOffCommand(channel, false, false));
  } catch (error) {
    port.remember(channel, saved);
    throw error;
  }
}

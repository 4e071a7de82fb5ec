/**
 * A live amplifier as the live headset (live-headset.ts) sees it: something that pushes blocks of
 * samples at its own pace, as an OpenBCI Cyton on a serial port or an LSL outlet on the network
 * does. The simulated and replay devices are pulled (the acquisition engine asks a signal source
 * for samples when they are due); a live amplifier is not: its samples arrive when its own clock
 * says so, and the live headset frames them as they come.
 *
 * A driver knows its wire (bytes, packets, the LSL protocol); the live headset knows the Headset
 * interface (owners, configuration, frames, events, capabilities). Between them: this file.
 */
import { type Electrode, type ElectrodeMap, isEegElectrode } from '../../core/electrodes.js';
import { matchElectrode } from '../../formats/labels.js';
import type { ChannelType } from '../channels.js';
import type { Unsubscribe } from '../../core/listener-set.js';
import type { BatteryStatus } from '../headset.js';

/** One channel of the amplifier, in the driver's column order. */
export interface LiveChannel {
  /** The amplifier's own name for it, as its source gives it (`EEG Fp1-Ref`, `TP9`, `ACC_X`). */
  readonly label: string;
  /**
   * The name it is played under: its label cleaned of type prefixes and reference suffixes
   * (formats/labels.ts `cleanLabel`), or the name the device argument gives it; undefined when it is
   * not played (its `reason` says why).
   */
  readonly name: string | undefined;
  readonly type: ChannelType;
  /**
   * The unit of its samples in the driver's blocks and in frames: absent for µV (every voltage
   * channel, scaled to µV by the driver), else the unit its source declares (`g`, `m/s^2`).
   */
  readonly unit?: string;
  /** Why it is not played, when `name` is undefined. */
  readonly reason?: string;
}

/**
 * The headset electrode a played channel is named for (`T7` is the headset's T3), for what only
 * the headset's electrodes have: impedance keyed by electrode. Undefined for any other name.
 */
export function liveChannelElectrode(channel: LiveChannel): Electrode | undefined {
  if (channel.name === undefined) return undefined;
  const electrode = matchElectrode(channel.name);
  return electrode !== undefined && isEegElectrode(electrode) ? electrode : undefined;
}

/** A block of consecutive samples as the amplifier delivered it. */
export interface LiveSamples {
  /**
   * Samples row-major, one column per channel of `channels()`, in that order: µV at the electrode,
   * or the channel's own `unit` for a non-voltage channel.
   */
  readonly data: Float32Array;
  readonly rows: number;
  /**
   * Time of the first row, ms since the Unix epoch on this machine's clock: the driver maps the
   * amplifier's clock (LSL's, the board's sample counter) onto it.
   */
  readonly timestamp: number;
  /**
   * ms from one row of this block to the next on the driver's clock (a Cyton's fitted line, which
   * follows the board's crystal); absent: 1000 / the nominal rate. Row r is at
   * `timestamp + r × period`.
   */
  readonly period?: number;
  /**
   * Rows the amplifier produced before this block that never arrived (from the board's sample
   * counter, or the LSL time stamps). Never filled in: the frame after a loss is marked, and the
   * live headset announces the count as a `samples_lost` event (a block with `lost > 0` is a
   * discontinuity even when its `discontinuity` is false).
   */
  readonly lost: number;
  /**
   * True when this block does not continue the previous one: rows lost, the amplifier reset or
   * reconnected, or its rate changed. The live headset marks the frame `discontinuity: true`.
   */
  readonly discontinuity: boolean;
}

/**
 * What happened to the link, for the device's events (`device_lost`, `device_restored`,
 * `samples_lost`). Rows lost before a block are announced from the block's `lost`: a
 * `samples_lost` link event is for rows no block will account for (lost as the link dropped).
 */
export type LiveLinkEvent =
  | { readonly kind: 'lost'; readonly message: string }
  | { readonly kind: 'restored'; readonly message: string }
  | { readonly kind: 'samples_lost'; readonly rows: number; readonly message: string };

/** Identity, for GET /system/version and /system/status. */
export interface LiveDriverInfo {
  /** `cyton` or `lsl`. */
  readonly kind: string;
  readonly model: string;
  readonly hardware: string;
  readonly firmware: string;
  readonly serial: string;
  /** Where the samples come from, in words (`/dev/ttyUSB0`, `LSL stream 'obci_eeg1' (type EEG) on host lab-pc`). */
  readonly source: string;
}

export interface LiveEegDriver {
  /**
   * Connects (opens the port, resolves the stream) and learns the channels and rate. Rejects with a
   * clear error (`device_unavailable`) when the amplifier cannot be reached.
   */
  open(): Promise<void>;
  info(): LiveDriverInfo;
  /** The amplifier's channels, in column order (known after `open`). */
  channels(): readonly LiveChannel[];
  /** Hz, the amplifier's nominal rate (known after `open`). */
  sampleRate(): number;
  /** The largest magnitude (µV) a sample can have at the present settings; undefined when unknown. */
  range(): number | undefined;
  /** Starts the amplifier's stream (Cyton `b`; an LSL inlet opens). */
  start(): Promise<void>;
  /** Stops it (Cyton `s`; the inlet closes). Idempotent. */
  stop(): Promise<void>;
  onSamples(listener: (samples: LiveSamples) => void): Unsubscribe;
  onLink(listener: (event: LiveLinkEvent) => void): Unsubscribe;
  /**
   * The programmable gain, where the amplifier has one (Cyton: 1, 2, 4, 6, 8, 12, 24): applied to
   * every channel. Absent: the amplifier's gain is not ours to set (LSL).
   */
  setGain?(gain: number): Promise<void>;
  /**
   * The gain the amplifier applies now, where the driver knows it (Cyton: 24 after a reset). Absent:
   * the headset reports gain 1 (the values are the amplifier's µV; no gain is applied here).
   */
  gain?(): number;
  /**
   * Measures impedance the amplifier's way (Cyton: lead-off current on each channel in turn), in Ω,
   * for the electrodes given. Absent: the amplifier cannot measure impedance.
   */
  measureImpedance?(electrodes: readonly Electrode[], signal?: AbortSignal): Promise<ElectrodeMap<number>>;
  /**
   * ms one `measureImpedance` of every channel takes, the shortest interval between readings the
   * impedance sessions can keep. Absent: one second is assumed.
   */
  impedanceMeasurementMs?(): number;
  /**
   * The amplifier's battery, where it reports one. Absent: the headset has no battery
   * (no `power` part; the power paths answer not_supported).
   */
  battery?(): BatteryStatus;
  /**
   * What the driver counted on its wire since it opened, by name (Cyton: `tornPackets`,
   * `skippedBytes`, `resyncs`), for GET /system/status. Absent: nothing beyond the lost rows.
   */
  counters?(): Readonly<Record<string, number>>;
  /** Stops and releases the wire. Safe to call twice. */
  close(): Promise<void>;
}

/** The device in words, for messages (`The OpenBCI Cyton (/dev/ttyUSB0)`): capabilities.ts's `deviceName`. */
export function liveDeviceName(driver: LiveEegDriver): string {
  const { model, source } = driver.info();
  return `The ${model} (${source})`;
}

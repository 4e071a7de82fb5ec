/**
 * Device events (docs/system-paths.md §Events) and the small listener hub every device
 * uses to deliver them and its EEG frames.
 */

/** Event types the device emits; the API may add its own (for example `node_crashed`). */
export type SystemEventType =
  | 'acquisition_started'
  | 'acquisition_stopped'
  | 'motor_stalled'
  | 'motor_fault'
  | 'motor_timeout'
  | 'device_lost'
  | 'device_restored'
  /** A live amplifier's rows that never arrived (never filled in): the message gives the count. */
  | 'samples_lost'
  /** A live source sends faster or slower than its declared rate (device/live/rate-guard.ts). */
  | 'rate_mismatch'
  /** It sends at its declared rate again. */
  | 'rate_recovered'
  | 'low_battery'
  | 'charging_started'
  | 'charging_stopped';

export type EventLevel = 'info' | 'warning' | 'error';

export interface SystemEvent {
  readonly type: 'system';
  /** ms since the Unix epoch. */
  readonly timestamp: number;
  readonly eventType: SystemEventType;
  readonly level: EventLevel;
  /** One sentence for a person. */
  readonly message: string;
}

/** Impedance of the electrodes of one measurement, in kΩ (the unit of the events socket). */
export interface ImpedanceEvent {
  readonly type: 'impedance';
  readonly timestamp: number;
  readonly data: Readonly<Record<string, number>>;
}

/** Signal quality 0 (unusable) .. 1 (excellent), overall and per EEG channel. */
export interface QualityEvent {
  readonly type: 'quality';
  readonly timestamp: number;
  readonly data: { readonly overall: number; readonly channels: Readonly<Record<string, number>> };
}

/**
 * A marker of the recording the replay device plays (an EDF+/BDF+ annotation), announced when its
 * sample is delivered. `timestamp` is that sample's time in the frames (the frame's `timestamp` +
 * row / rate), so it lines up with the EEG; `onset` is where the file has it.
 */
export interface MarkerEvent {
  readonly type: 'marker';
  readonly timestamp: number;
  readonly data: {
    readonly text: string;
    /** Seconds from the file's first sample. */
    readonly onset: number;
    /** Seconds, when the annotation has one. */
    readonly duration?: number;
    /** The file's name. */
    readonly file: string;
  };
}

export type DeviceEvent = SystemEvent | ImpedanceEvent | QualityEvent | MarkerEvent;

export { ListenerSet, type Unsubscribe } from '../core/listener-set.js';

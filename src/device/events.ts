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

export type Unsubscribe = () => void;

/**
 * A set of listeners. A listener that throws does not stop delivery to the others nor the device:
 * its error goes to `onListenerError` (by default a process warning).
 */
export class ListenerSet<T> {
  private readonly listeners = new Set<(value: T) => void>();

  constructor(private readonly onListenerError: (error: unknown) => void = reportListenerError) {}

  add(listener: (value: T) => void): Unsubscribe {
    // Wrap so that the same function subscribed twice gets two independent subscriptions.
    const entry = (value: T): void => {
      listener(value);
    };
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  get size(): number {
    return this.listeners.size;
  }

  emit(value: T): void {
    for (const listener of this.listeners) {
      try {
        listener(value);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}

function reportListenerError(error: unknown): void {
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.emitWarning(`A device listener threw: ${text}`, 'HeadsetdDeviceWarning');
}

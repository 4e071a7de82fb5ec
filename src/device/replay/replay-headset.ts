/**
 * The replay device (`--device replay:FILE`): a headset whose EEG is a real EDF/EDF+/BDF/BDF+
 * recording played back in real time, and whose every other part (impedance, motors, LEDs, IMU,
 * power, peripheral bus, events, status) is the simulated headset's. It is the simulated headset
 * composed with another signal source, so the acquisition engine (pacing from the monotonic
 * clock, ~10 ms frames, owners, configuration, discontinuity flags) is the same code.
 *
 * Differences from the simulated headset, all documented in docs/device.md §Replay device:
 * - EEG channels are those of the file (absent electrodes never appear), at the file's rate by
 *   default; a standard rate set by configuration resamples; gain does not scale recorded values;
 * - the electrodes start pressed onto the scalp (`initialMotorPosition: 'scalp'`), as they were
 *   when the recording was made, unless the options say otherwise;
 * - `info()` says `kind: 'replay'` and names the file;
 * - the file's annotations are announced as `marker` events (`onEvent`) when playback reaches them,
 *   each at the time of its sample in the frames.
 */
import type { PlayedMarker } from '../production/producer.js';
import { type DeviceEvent, ListenerSet, type Unsubscribe } from '../events.js';
import { type SimulatedHeadsetOptions, SimulatedHeadset } from '../simulated/simulated-headset.js';
import { openRecording, type ReplayRecordingInfo } from './recording.js';
import { ReplaySource } from './replay-source.js';

/** Options of the replay device: those of the simulated headset, except its EEG and identity. */
export type ReplayHeadsetOptions = Omit<
  SimulatedHeadsetOptions,
  'signalSource' | 'threadSource' | 'info' | 'mainsFrequency'
>;

/** The replay device: a `Headset` (with the simulation's controls) that also describes its file. */
export class ReplayHeadset extends SimulatedHeadset {
  /** The file played: path, format, rate, mapped channels, dropped labels, tolerated flaws. */
  readonly recording: ReplayRecordingInfo;
  private readonly replaySource: ReplaySource;
  private readonly markerListeners = new ListenerSet<DeviceEvent>();

  /** Use `createReplayHeadset`. */
  constructor(source: ReplaySource, recording: ReplayRecordingInfo, options: ReplayHeadsetOptions) {
    const seed = options.seed ?? 1;
    super({
      initialMotorPosition: 'scalp',
      ...options,
      signalSource: source,
      threadSource: { kind: 'replay', file: recording.path },
      info: {
        kind: 'replay',
        hardware: `HS-21 replay of ${recording.fileName}`,
        firmware: '1.0.0-replay',
        serial: `REPLAY-${seed.toString(16).toUpperCase().padStart(8, '0')}`,
        recording,
      },
    });
    this.replaySource = source;
    this.recording = recording;
  }

  override onEvent(listener: (event: DeviceEvent) => void): Unsubscribe {
    const device = super.onEvent(listener);
    const markers = this.markerListeners.add(listener);
    return () => {
      device();
      markers();
    };
  }

  /** The file's markers the samples passed, each announced at the time of its sample. */
  protected override onMarkers(markers: readonly PlayedMarker[]): void {
    for (const { timestamp, marker } of markers) {
      this.markerListeners.emit({
        type: 'marker',
        timestamp,
        data: {
          text: marker.text,
          onset: marker.onset,
          ...(marker.duration === undefined ? {} : { duration: marker.duration }),
          file: this.recording.fileName,
        },
      });
    }
  }

  override async close(): Promise<void> {
    await super.close();
    this.markerListeners.clear();
    this.replaySource.close();
  }
}

/**
 * Opens `file` (EDF, EDF+C/D, BDF, BDF+C/D) and builds the replay device on it. Reads the header
 * now (synchronously) and the samples later, on demand while acquiring.
 *
 * Throws `HeadsetdError('validation_failed')` when the file cannot be read, has no data record,
 * has no channel named like one of the 19 EEG electrodes (the message lists its labels), or a
 * played channel's physical dimension is not a voltage (nV, uV/µV, mV, V).
 */
export function createReplayHeadset(file: string, options: ReplayHeadsetOptions = {}): ReplayHeadset {
  const recording = openRecording(file);
  const source = new ReplaySource(recording);
  try {
    return new ReplayHeadset(source, recording.info, options);
  } catch (error) {
    source.close();
    throw error;
  }
}

/**
 * The device's thread's own copy of what the samples are made of. The simulated EEG is
 * deterministic under its seed, so the thread builds the same source the headset would
 * (simulated/eeg.ts on the seed's `eeg` stream, the wearer on its `wearer` stream) and a copy of
 * the contact model from its state, and follows the motors' moves and the wearer's requests as the
 * main thread reports them; a replayed file is opened again here, and its position in the file is
 * this thread's.
 */
import type { Electrode } from '../../core/electrodes.js';
import type { DeviceClock } from '../clock.js';
import { openRecording } from '../replay/recording.js';
import { ReplaySource } from '../replay/replay-source.js';
import type { EegSignalSource } from '../signal-source.js';
import { ContactModel } from '../simulated/contact.js';
import { SimulatedEegSource } from '../simulated/eeg.js';
import { type MotorMotion, type MotorMotions, positionAt } from '../simulated/motors.js';
import { Random } from '../simulated/random.js';
import { type WearerSnapshot, WearerModel } from '../simulated/wearer.js';
import type { PulledThreadSource } from './thread-protocol.js';

export interface ThreadSignal {
  readonly source: EegSignalSource;
  /** The electrode's true impedance (Ω) now. */
  impedance(electrode: Electrode): number;
  /** The motors' moves changed. */
  moved(motions: MotorMotions): void;
  /** The wearer's responses changed. */
  wearerChanged(wearer: WearerSnapshot): void;
  close(): void;
}

export function openThreadSignal(spec: PulledThreadSource, clock: DeviceClock): ThreadSignal {
  if (spec.kind === 'replay') {
    const source = new ReplaySource(openRecording(spec.file));
    return {
      source,
      // A recording's samples are what they are: the contact does not touch them.
      impedance: () => 0,
      moved: () => undefined,
      wearerChanged: () => undefined,
      close: () => {
        source.close();
      },
    };
  }
  const random = new Random(spec.seed, 'headset');
  const contact = new ContactModel(spec.contact, clock.now());
  let motions = new Map<Electrode, MotorMotion>(spec.motions);
  let wearer: WearerModel | undefined;
  if (spec.wearer !== undefined) {
    wearer = new WearerModel(random.fork('wearer'), () => clock.now());
    wearer.restore(spec.wearer);
  }
  const source = new SimulatedEegSource(random.fork('eeg'), {
    ...(spec.mainsFrequency === undefined ? {} : { mainsFrequency: spec.mainsFrequency }),
    ...(wearer === undefined ? {} : { wearer }),
  });
  return {
    source,
    impedance: (electrode) => {
      const now = clock.now();
      const motion = motions.get(electrode);
      return motion === undefined ? 0 : contact.impedance(electrode, positionAt(motion, now), now);
    },
    moved: (next) => {
      motions = new Map(next);
    },
    wearerChanged: (snapshot) => {
      wearer?.restore(snapshot);
    },
    close: () => undefined,
  };
}

/**
 * TypeBox shapes of the /system answers (docs/system-paths.md §/system), for the OpenAPI document.
 * Answers are serialised with JSON.stringify, so these describe and never trim.
 */
import { Type } from 'typebox';
import { ELECTRODES, EEG_ELECTRODES } from '../../core/electrodes.js';
import { EEG_GAINS, EEG_SAMPLING_FREQUENCIES } from '../../device/headset.js';

export const ElectrodeNumberMap = Type.Record(Type.String(), Type.Number(), {
  description: `Electrode name → number, for the electrodes asked (all 21 when none): ${ELECTRODES.join(', ')}.`,
});

export const ElectrodeListQuery = Type.Optional(
  Type.Array(Type.String(), {
    description: 'Electrode names, any case: repeated keys (?x=O1&x=O2) or a comma list (?x=O1,O2).',
  }),
);

export const EegConfigShape = Type.Object({
  channels: Type.Array(Type.String(), {
    description: `Upper-case EEG channels, of ${EEG_ELECTRODES.join(', ')}.`,
  }),
  gain: Type.Enum([...EEG_GAINS]),
  samplingFrequency: Type.Enum([...EEG_SAMPLING_FREQUENCIES], { description: 'Hz.' }),
});

export const ImuReadingShape = Type.Object({
  pos_x: Type.Number({ description: 'mm from the rest position.' }),
  pos_y: Type.Number({ description: 'mm.' }),
  pos_z: Type.Number({ description: 'mm.' }),
  roll: Type.Number({ description: 'degrees.' }),
  pitch: Type.Number({ description: 'degrees.' }),
  yaw: Type.Number({ description: 'degrees.' }),
});

export const AnyObject = Type.Object({}, { additionalProperties: true });

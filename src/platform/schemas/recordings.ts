/**
 * The shape of a recording as GET /system/recordings lists it (docs/recordings.md), for the
 * OpenAPI document and the dashboard's types.
 */
import { Type } from 'typebox';

export const RecordingSchema = Type.Object({
  name: Type.String({ description: 'File name inside <data-dir>/recordings.' }),
  format: Type.Enum(['edf', 'bdf', 'csv']),
  bytes: Type.Integer({ minimum: 0 }),
  created: Type.String({ description: 'ISO 8601: time of the first sample.' }),
  durationSeconds: Type.Union([Type.Number({ minimum: 0 }), Type.Null()], {
    description: 'Seconds of samples; null when unknown (a foreign CSV without timestamps).',
  }),
  channels: Type.Array(Type.String()),
  sampleRate: Type.Union([Type.Number({ exclusiveMinimum: 0 }), Type.Null()], { description: 'Hz' }),
  complete: Type.Boolean({
    description:
      'False while being written, or when the recorder did not stop cleanly (then repaired at start).',
  }),
});

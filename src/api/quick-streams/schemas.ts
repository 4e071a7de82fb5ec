/**
 * Request and answer schemas of the quick-stream routes (validated by ajv in strict mode:
 * unknown fields and wrong types are 400 with a pointer; values are checked for meaning by
 * streams/quick-stream.ts, 422).
 */
import { Type } from 'typebox';
import { EEG_ELECTRODES } from '../../core/electrodes.js';

const Hz = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

export const QuickStartSchema = Type.Object(
  {
    source: Type.Optional(
      Type.Enum(['eeg', 'ingest'], {
        description:
          "eeg (default): the headset's acquisition; ingest: frames sent to the WebSocket /stream/{streamId}/ingest",
      }),
    ),
    sampleRate: Type.Optional(
      Type.Number({ description: 'Hz: 250 (default), 500, 1000, 2000, 4000, 8000, 16000' }),
    ),
    channels: Type.Optional(
      Type.Union(
        [Type.Array(Type.String({ minLength: 1, maxLength: 16 }), { maxItems: 64 }), Type.String()],
        {
          description: `EEG electrode names, any case (a list, a comma list, or "all"; default all): ${EEG_ELECTRODES.join(' ')}`,
        },
      ),
    ),
    filters: Type.Optional(
      Type.Object(
        {
          highpass: Type.Optional(Hz('Hz; absent or null: none')),
          lowpass: Type.Optional(Hz('Hz; absent or null: none')),
          notch: Type.Optional(Hz('Hz (50 or 60 typically); absent or null: none')),
        },
        { additionalProperties: false },
      ),
    ),
    bufferSize: Type.Optional(
      Type.Integer({ description: 'Samples (rows) kept for /data; default 10 s worth at sampleRate' }),
    ),
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Kept as given' })),
  },
  { additionalProperties: false },
);

export const PipeSchema = Type.Object(
  {
    target: Type.Object(
      {
        host: Type.String({ minLength: 1, maxLength: 255, description: 'Must be in the pipe allow-list' }),
        port: Type.Integer({ minimum: 1, maximum: 65535 }),
        streamId: Type.String({ minLength: 1, maxLength: 64, description: 'The receiving stream (UUID)' }),
        token: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 256,
            description: "The receiving service's token, if it needs one",
          }),
        ),
      },
      { additionalProperties: false },
    ),
    format: Type.Optional(
      Type.Enum(['json'], { description: 'The JSON text form of frames (the only one)' }),
    ),
    metadata: Type.Optional(
      Type.Object(
        {
          includeChannelMetadata: Type.Optional(
            Type.Boolean({
              description: 'Send channel names, unit and source with the first frame of each connection',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const Rate = Type.Object({ samplesPerSecond: Type.Number(), bytesPerSecond: Type.Number() });

export const PipeStatusShape = Type.Object({
  target: Type.Object({ host: Type.String(), port: Type.Integer(), streamId: Type.String() }),
  url: Type.String(),
  state: Type.String({ description: 'connecting, open, reconnecting or closed' }),
  framesSent: Type.Integer(),
  framesDropped: Type.Integer(),
  queued: Type.Integer(),
  reconnects: Type.Integer(),
  lastError: Type.Union([Type.String(), Type.Null()]),
});

export const StatusAnswer = Type.Object({
  success: Type.Literal(true),
  streamId: Type.String(),
  status: Type.String({ description: 'The stream state, lower case' }),
  degraded: Type.Boolean({
    description:
      'True while the stream runs without delivering all it answered (its channels are not acquired now, a node is in error): frames are held back or lost meanwhile.',
  }),
  error: Type.Union([Type.String(), Type.Null()], {
    description: 'Why the stream is in error or degraded; null otherwise.',
  }),
  startTime: Type.Union([Type.String({ description: 'ISO 8601' }), Type.Null()]),
  duration: Type.Number({ description: 'Seconds of the current (or last) run' }),
  samples: Type.Integer({ description: 'Sample rows received in the current (or last) run' }),
  sampleRate: Type.Number(),
  channels: Type.Array(Type.String()),
  dataRate: Rate,
  clients: Type.Integer(),
  recording: Type.Boolean(),
  recordingId: Type.Union([Type.String(), Type.Null()]),
  bufferSize: Type.Integer(),
  buffered: Type.Integer(),
  framesDropped: Type.Integer({ description: 'Frames skipped for slow WebSocket clients' }),
  pipe: Type.Union([PipeStatusShape, Type.Null()]),
  ingest: Type.Union([Type.Object({ clients: Type.Integer(), frames: Type.Integer() }), Type.Null()]),
});

/**
 * The shapes of the maker's SDK (instinct-py) surface, for the OpenAPI document: the answers its
 * models accept and the bodies it sends (docs/instinct-sdk.md). Integer fields are `Integer`: the
 * SDK's models refuse a number with a fraction there.
 */
import { Type } from 'typebox';
import { ConfigEntry } from '../sdk-shapes.js';

export const TAG = 'instinct-sdk';
export const tags = [TAG];

const Open = Type.Object({}, { additionalProperties: true });
const NullableOpen = Type.Union([Open, Type.Null()]);

/** Every SDK answer of an operation: a message for a person and whether it succeeded. */
const outcome = { message: Type.String(), success: Type.Boolean() };

export const SdkNode = Type.Object({
  id: Type.String(),
  executable: Type.String(),
  config: Open,
  meta: NullableOpen,
});

export const SdkPipe = Type.Object({ id: Type.String(), source: Type.String(), destination: Type.String() });

export const SdkStream = Type.Object(
  {
    id: Type.String(),
    nodes: Type.Array(SdkNode),
    pipes: Type.Array(SdkPipe),
    meta: NullableOpen,
    state: Type.Optional(Type.String({ description: 'The run state (lower case), added for people.' })),
  },
  { description: 'A stream as the SDK reads it: config always an object, pipes with a destination.' },
);

export const StreamAnswer = Type.Object({ ...outcome, stream: Type.Optional(SdkStream) });
export const NodeAnswer = Type.Object({ ...outcome, node: Type.Optional(SdkNode) });
export const PipeAnswer = Type.Object({ ...outcome, pipe: Type.Optional(SdkPipe) });

/** Bodies as the SDK sends them (model_dump of its models: absent ids are UUIDs, absent meta is null). */
export const StreamBody = Type.Object(
  {
    id: Type.String(),
    nodes: Type.Array(Open),
    pipes: Type.Array(Open),
    meta: Type.Optional(NullableOpen),
  },
  { additionalProperties: true },
);
export const StreamIdBody = Type.Object({ streamId: Type.String() }, { additionalProperties: true });
const SignalShape = Type.Object({
  signal: Type.String(),
  parameters: Type.Optional(Type.Union([Open, Type.Null()])),
});
export const StreamSignalBody = Type.Object({ streamId: Type.String(), signal: SignalShape });
export const NodeBody = Type.Object({ streamId: Type.String(), node: Open });
export const NodeSignalBody = Type.Object({
  streamId: Type.String(),
  nodeId: Type.String(),
  signal: SignalShape,
});
export const PipeBody = Type.Object({ streamId: Type.String(), pipe: Open });

export const Electrode = Type.Object({
  position: Type.String(),
  enabled: Type.Boolean(),
  gain: Type.Union([Type.Number(), Type.Null()], {
    description: "The device's EEG gain (one for all channels); null for CMS and DRL.",
  }),
});
export const ElectrodeBody = Type.Object(
  {
    position: Type.String(),
    enabled: Type.Boolean(),
    gain: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  },
  { additionalProperties: false },
);
export const ElectrodeAnswer = Type.Object({ ...outcome, electrode: Type.Optional(Electrode) });

export const Sensor = Type.Object({
  type: Type.String(),
  enabled: Type.Boolean(),
  sample_rate: Type.Union([Type.Integer(), Type.Null()], { description: 'Hz.' }),
  range: Type.Union([Type.Number(), Type.Null()]),
});
export const SensorBody = Type.Object(
  {
    type: Type.String(),
    enabled: Type.Boolean(),
    sample_rate: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    range: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  },
  { additionalProperties: false },
);
export const SensorAnswer = Type.Object({ ...outcome, sensor: Type.Optional(Sensor) });

const NullableString = Type.Union([Type.String(), Type.Null()]);
export const ConfigEntryBody = Type.Object(
  {
    key: Type.String(),
    value: Type.Unknown(),
    id: Type.Optional(NullableString),
    expires_in: Type.Optional(NullableString),
    expires_on: Type.Optional(NullableString),
    created_at: Type.Optional(NullableString),
    updated_at: Type.Optional(NullableString),
  },
  { additionalProperties: false },
);
export const ConfigDeleteAnswer = Type.Object({ ...outcome, config: Type.Optional(ConfigEntry) });

export const NameAnswer = Type.Object({ name: Type.String() });
export const SetNameAnswer = Type.Object({ ...outcome, name: Type.String() });

const Ints = Type.Array(Type.Integer());
export const DebugPacket = Type.Object({
  cmd_resp: Type.Integer(),
  peripheral: Type.Integer(),
  peripheral_channels: Type.Integer(),
  parameter: Ints,
  data: Ints,
  packet_type: Type.Integer(),
});
const FormNumber = Type.Union([Type.String(), Type.Integer()]);
export const DebugForm = Type.Object(
  {
    cmd_resp: FormNumber,
    peripheral: FormNumber,
    peripheral_channels: FormNumber,
    packet_type: FormNumber,
    parameter: Type.Optional(Type.Union([FormNumber, Type.Array(FormNumber)])),
    data: Type.Optional(Type.Union([FormNumber, Type.Array(FormNumber)])),
  },
  { description: 'Form fields; a list is its field repeated, and an empty list is absent.' },
);

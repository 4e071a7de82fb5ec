/**
 * What the maker's Python SDK (instinct-py 1.5.1) requires of each answer, written down as plain
 * checks: the fields each of its models needs, and their JSON types as its validation (pydantic v2,
 * lax mode) takes them. An `int` field takes a JSON integer (a number with a fraction is refused;
 * pydantic's lax mode also takes true/false there, used by `isCharging`); `float` any number; `str`
 * a string only (a number is refused); `bool` true or false. A field marked optional may be absent
 * or null; one marked nullable must be present and may be null. Extra fields are ignored, as the
 * SDK ignores them.
 */

export type FieldType =
  | 'str'
  | 'int'
  | 'intOrBool'
  | 'float'
  | 'bool'
  | 'any'
  | 'dict'
  | { list: FieldType }
  | { model: Model };

export interface Field {
  readonly type: FieldType;
  /** May be absent or null (the SDK gives it a default of None). */
  readonly optional?: boolean;
  /** Must be present, may be null (`X | None` without a default). */
  readonly nullable?: boolean;
}

export type Model = Readonly<Record<string, Field>>;

const f = (type: FieldType, more: Omit<Field, 'type'> = {}): Field => ({ type, ...more });
const opt = (type: FieldType): Field => f(type, { optional: true });

export const Battery: Model = {
  hasBattery: f('bool'),
  cycleCount: f('int'),
  isCharging: f('intOrBool'),
  designedCapacity: f('int'),
  maxCapacity: f('int'),
  currentCapacity: f('int'),
  voltage: f('int'),
  percent: f('int'),
  capacityUnit: f('str'),
  timeRemaining: f('int', { nullable: true }),
  acConnected: f('bool'),
  type: f('str'),
  model: f('str'),
  manufacturer: f('str'),
  serial: f('str'),
};

export const DeviceState: Model = {
  status: f('str'),
  httpPort: f('int'),
  grpcPort: f('int'),
  host: f('str'),
  battery: f({ model: Battery }),
  cpu: f({
    model: {
      load: f('float'),
      temperature: f('int'),
      totalClockSpeed: f('float'),
      currentClockSpeed: f('float'),
    },
  }),
  ram: f({ model: { total: f('int'), available: f('int'), free: f('int') } }),
  storage: f({ model: { total: f('int'), free: f('int') } }),
};

export const DeviceName: Model = { name: f('str') };
export const SetNameResponse: Model = { message: f('str'), success: f('bool') };

export const DebugPacket: Model = {
  cmd_resp: f('int'),
  peripheral: f('int'),
  peripheral_channels: f('int'),
  parameter: f({ list: 'int' }),
  data: f({ list: 'int' }),
  packet_type: f('int'),
};

export const Electrode: Model = { position: f('str'), enabled: f('bool'), gain: opt('float') };
export const ElectrodeResponse: Model = {
  message: f('str'),
  success: f('bool'),
  electrode: opt({ model: Electrode }),
};

export const Sensor: Model = {
  type: f('str'),
  enabled: f('bool'),
  sample_rate: opt('int'),
  range: opt('float'),
};
export const SensorResponse: Model = {
  message: f('str'),
  success: f('bool'),
  sensor: opt({ model: Sensor }),
};

export const ConfigEntry: Model = {
  key: f('str'),
  value: f('any'),
  id: opt('str'),
  expires_in: opt('str'),
  expires_on: opt('str'),
  created_at: opt('str'),
  updated_at: opt('str'),
};
export const ConfigResponse: Model = {
  message: f('str'),
  success: f('bool'),
  config: opt({ model: ConfigEntry }),
};

export const StreamNode: Model = { executable: f('str'), config: f('dict'), id: f('str'), meta: opt('dict') };
export const StreamPipe: Model = { source: f('str'), destination: f('str'), id: f('str') };
export const Stream: Model = {
  id: f('str'),
  nodes: f({ list: { model: StreamNode } }),
  pipes: f({ list: { model: StreamPipe } }),
  meta: opt('dict'),
};
export const StreamResponse: Model = {
  message: f('str'),
  success: f('bool'),
  stream: opt({ model: Stream }),
};
export const NodeResponse: Model = {
  message: f('str'),
  success: f('bool'),
  node: opt({ model: StreamNode }),
};
export const PipeResponse: Model = {
  message: f('str'),
  success: f('bool'),
  pipe: opt({ model: StreamPipe }),
};

function typeProblems(type: FieldType, value: unknown, at: string): string[] {
  if (typeof type === 'object') {
    if ('list' in type) {
      if (!Array.isArray(value)) return [`${at}: a list is required, got ${JSON.stringify(value)}`];
      return value.flatMap((item, i) => typeProblems(type.list, item, `${at}/${i}`));
    }
    return modelProblems(type.model, value, at);
  }
  const bad = (what: string) => [`${at}: ${what} is required, got ${JSON.stringify(value)}`];
  switch (type) {
    case 'str':
      return typeof value === 'string' ? [] : bad('a string');
    case 'int':
      return typeof value === 'number' && Number.isInteger(value) ? [] : bad('an integer');
    case 'intOrBool':
      return typeof value === 'boolean' || (typeof value === 'number' && Number.isInteger(value))
        ? []
        : bad('an integer (or true/false)');
    case 'float':
      return typeof value === 'number' && Number.isFinite(value) ? [] : bad('a number');
    case 'bool':
      return typeof value === 'boolean' ? [] : bad('true or false');
    case 'dict':
      return value !== null && typeof value === 'object' && !Array.isArray(value) ? [] : bad('an object');
    case 'any':
      return [];
  }
}

/** Every way `value` fails the model, as `/path: problem` lines; empty when the SDK accepts it. */
export function modelProblems(model: Model, value: unknown, at = ''): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return [`${at || '/'}: an object is required, got ${JSON.stringify(value)}`];
  }
  const record = value as Record<string, unknown>;
  return Object.entries(model).flatMap(([name, field]) => {
    const path = `${at}/${name}`;
    const present = Object.hasOwn(record, name);
    const item = record[name];
    if (!present) return field.optional === true ? [] : [`${path}: required, absent`];
    if (item === null)
      return field.optional === true || field.nullable === true ? [] : [`${path}: null is refused`];
    return typeProblems(field.type, item, path);
  });
}

/** `modelProblems` of each item of a list answer. */
export function listProblems(model: Model, value: unknown): string[] {
  if (!Array.isArray(value))
    return [
      `/: a list is required, got ${(JSON.stringify(value) as string | undefined)?.slice(0, 200) ?? 'nothing'}`,
    ];
  return value.flatMap((item, i) => modelProblems(model, item, `/${i}`));
}

/**
 * TypeBox shapes of the /system answers (docs/system-paths.md §/system), for the OpenAPI document.
 * Answers are serialised with JSON.stringify, so these describe and never trim.
 */
import { Type } from 'typebox';
import { ELECTRODES, EEG_ELECTRODES } from '../../core/electrodes.js';
import { LED_INDICES } from '../../device/headset.js';
import { EEG_GAINS, EEG_SAMPLING_FREQUENCIES } from '../../core/hardware.js';

export const ElectrodeNumberMap = Type.Record(Type.String(), Type.Number(), {
  description: `Electrode name → number, for the electrodes asked (all 21 when none): ${ELECTRODES.join(', ')}.`,
});

export const ElectrodeListQuery = Type.Optional(
  Type.Array(Type.String(), {
    description: 'Electrode names, any case: repeated keys (?x=O1&x=O2) or a comma list (?x=O1,O2).',
  }),
);

/** A list of the device's channel names in a query (PUT /system/sensors/eeg). */
export const ChannelListQuery = Type.Optional(
  Type.Array(Type.String(), {
    description:
      "The device's channel names (GET /system/status channels.played), any case: repeated keys (?x=O1&x=O2) or a comma list (?x=O1,O2).",
  }),
);

export const EegConfigShape = Type.Object({
  channels: Type.Array(Type.String(), {
    description: `The channels acquired: on the headset its upper-case EEG electrodes, of ${EEG_ELECTRODES.join(', ')}; on a live amplifier its own channel names (GET /system/status channels.played).`,
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

/** GET /system/health: the health record. */
/** The parts the device has (docs/devices.md §Capabilities); a missing part answers 409 not_supported. */
export const DeviceCapabilitiesShape = Type.Object(
  {
    eeg: Type.Boolean(),
    impedance: Type.Boolean(),
    motors: Type.Boolean(),
    leds: Type.Boolean(),
    imu: Type.Boolean(),
    battery: Type.Boolean(),
    peripheralBus: Type.Boolean(),
  },
  {
    description:
      'The parts the device has: the simulated headset and a replay have all; a live amplifier (Cyton, LSL) has EEG and, where its driver measures it, impedance. Paths that need a missing part answer 409 not_supported.',
  },
);

export const HealthRecord = Type.Object({
  status: Type.Enum(['healthy', 'degraded']),
  problems: Type.Array(Type.String()),
  httpPort: Type.Integer(),
  grpcPort: Type.Integer({ description: 'Always 0: no gRPC listener.' }),
  host: Type.String({ description: 'The device hostname (GET /system/hostname).' }),
  battery: Type.Object(
    {
      cycleCount: Type.Integer(),
      designedCapacity: Type.Integer(),
      maxCapacity: Type.Integer(),
      currentCapacity: Type.Integer(),
      voltage: Type.Integer({
        description: 'mV (whole numbers, as the peripheral bus and the maker’s SDK read it).',
      }),
      percent: Type.Integer({ description: 'Whole percent (GET /system/status has tenths).' }),
      timeRemaining: Type.Union([Type.Integer(), Type.Null()], {
        description: 'Minutes; null while charging.',
      }),
      temperature: Type.Union([Type.Number(), Type.Null()], {
        description: '°C of the pack (added to the reference record).',
      }),
    },
    {
      additionalProperties: true,
      description:
        'The health record battery, plus temperature. On a device without a battery: hasBattery false, every figure 0, timeRemaining and temperature null, type "none" (docs/devices.md).',
    },
  ),
  capabilities: DeviceCapabilitiesShape,
  cpu: Type.Object({
    load: Type.Number({ description: 'Percent of all cores busy since the previous health call.' }),
    temperature: Type.Union([Type.Integer(), Type.Null()], {
      description:
        "Whole °C: the machine's hottest sensor, else the thermal model of a simulated or replayed headset fed with the real load; null on a live device on a machine without a sensor (GET /system/status says which, in tenths).",
    }),
    totalClockSpeed: Type.Number({ description: 'GHz, nominal.' }),
    currentClockSpeed: Type.Number({ description: 'GHz, current mean.' }),
  }),
  ram: Type.Object(
    { total: Type.Integer(), available: Type.Integer(), free: Type.Integer() },
    { description: 'Bytes.' },
  ),
  storage: Type.Object(
    { total: Type.Integer(), free: Type.Integer() },
    { description: 'Bytes of the data dir file system.' },
  ),
  service: Type.Object(
    {
      rss: Type.Number({ description: "Bytes of resident memory of the service's process (children not)." }),
      heapUsed: Type.Number({ description: "Bytes of the main thread's JavaScript heap in use." }),
      openFiles: Type.Union([Type.Integer(), Type.Null()], { description: 'Open file descriptors.' }),
      childProcesses: Type.Union([Type.Integer(), Type.Null()], {
        description: 'Processes descending from the service (external nodes and their children).',
      }),
      eventLoopDelayMs: Type.Union(
        [Type.Object({ p50: Type.Number(), p99: Type.Number(), max: Type.Number() }), Type.Null()],
        {
          description:
            "The API thread's event loop delay since the previous health call, ms; null on the first call (the monitor starts then, and stops after a minute without calls).",
        },
      ),
    },
    { description: 'Figures of the service itself (added to the reference record).' },
  ),
});

const Source = Type.Enum(['sensor', 'simulated', 'none'], {
  description: 'sensor: measured; simulated: the thermal model; none: not known (null).',
});

const Temperature = Type.Object({
  celsius: Type.Union([Type.Number(), Type.Null()]),
  source: Source,
});

/** The replay device's file as GET /system/status answers it (docs/device.md §Replay device). */
export const ReplayStatus = Type.Object(
  {
    file: Type.String({ description: 'Absolute path of the recording played.' }),
    format: Type.Enum(['edf', 'bdf']),
    variant: Type.Enum(['plain', 'continuous', 'discontinuous']),
    sampleRate: Type.Number({ description: "The file's rate, Hz (the default acquisition rate)." }),
    durationSeconds: Type.Number({ description: 'One pass of the file; playback loops.' }),
    channels: Type.Array(
      Type.Object({ electrode: Type.String(), label: Type.String(), unit: Type.String() }),
      { description: 'File signals played, as which electrode, in the device order.' },
    ),
    dropped: Type.Array(Type.Object({ label: Type.String(), reason: Type.String() }), {
      description: 'File signals not played, and why.',
    }),
    warnings: Type.Array(Type.String(), { description: "Tolerated flaws of the file's header." }),
  },
  { description: 'On the replay device only: the file played and how its signals were mapped.' },
);

/** GET /system/status: the device state. */
/** GET /system/status `channels`: the device's channels as it is (src/device/channels.ts). */
export const DeviceChannelsShape = Type.Object(
  {
    played: Type.Array(
      Type.Object({
        name: Type.String({ description: 'The name frames, files and LSL outlets give the channel.' }),
        unit: Type.String({
          description:
            'The unit of its samples in frames: µV for every voltage channel, else its own as the source declares it (an accelerometer axis in g or m/s^2; frames carry it in units).',
        }),
        type: Type.Enum(['EEG', 'EXG', 'AUX', 'ACC', 'MISC']),
        position: Type.Optional(
          Type.Object(
            { x: Type.Number(), y: Type.Number() },
            {
              description:
                'Its place on a top view of the head when its name is a 10-05 site, in head radii: x toward the right ear, y toward the nose, the 10-20 equator (Fpz, T7, Oz, T8) at 0.8.',
            },
          ),
        ),
      }),
      { description: "Every channel the device plays, in the device's order." },
    ),
    unplayed: Type.Array(
      Type.Object({
        name: Type.String({ description: 'The name its source gives it.' }),
        reason: Type.String({ description: 'Why it is not played.' }),
      }),
      { description: 'Channels the device has but does not play, each with the reason.' },
    ),
  },
  {
    description:
      "The device's own channels: what eeg-source, quick streams and /system/sensors/eeg may name.",
  },
);

export const DeviceStatusShape = Type.Object({
  state: Type.Enum(['idle', 'acquiring', 'measuring_impedance', 'moving']),
  eeg: AnyObject,
  channels: DeviceChannelsShape,
  impedance: Type.Object({ measuring: Type.Boolean() }),
  motors: Type.Object({ moving: Type.Array(Type.String()), stalled: Type.Array(Type.String()) }),
  streams: Type.Object({ total: Type.Integer(), running: Type.Integer() }),
  battery: Type.Union([Type.Object({ percent: Type.Number(), isCharging: Type.Boolean() }), Type.Null()], {
    description: 'Null on a device without a battery (capabilities.battery false).',
  }),
  capabilities: DeviceCapabilitiesShape,
  uptimeSeconds: Type.Number({ description: 'Seconds since the service started.' }),
  version: Type.String({ description: 'The service version.' }),
  temperatures: Type.Object({ cpu: Temperature, battery: Temperature }),
  simulated: Type.Array(Type.String(), {
    description:
      'Health-record figures produced by a model, not a sensor: battery (the whole record, on a simulated or replayed device), battery.temperature, cpu.temperature.',
  }),
  replay: Type.Optional(ReplayStatus),
  tokenWaived: Type.Optional(
    Type.Object(
      {
        networks: Type.Array(Type.String(), {
          description: 'The client networks (CIDR) trusted without the token.',
        }),
        any: Type.Boolean({
          description:
            'True when --trust-network-any let a block of any breadth through (one covering every IPv4 address, or broader than an IPv4 /8 or an IPv6 /16).',
        }),
      },
      {
        description:
          'Present while the service listens beyond loopback and spares client networks the token (--trust-network; docs/security.md).',
      },
    ),
  ),
  lost: Type.Optional(
    Type.String({
      description:
        'Present while a live device is lost (its amplifier unplugged, its outlet gone): why. No EEG arrives until it is back (event device_restored).',
    }),
  ),
  amplifier: Type.Optional(
    Type.Object(
      {
        lostSamples: Type.Integer({
          minimum: 0,
          description:
            "Samples per channel, at the amplifier's rate, that it produced and that never arrived since the device opened (never filled in; each loss is also a samples_lost event).",
        }),
        counters: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
          description:
            "What the driver counted on its wire since it opened: on a Cyton tornPackets (packets not taken whole: torn short, or not followed by the next packet's header), skippedBytes (bytes that were no packet) and resyncs (times the stream fell out of step).",
        }),
      },
      { description: 'On a live device (Cyton, LSL) only: the counts of its link since it opened.' },
    ),
  ),
  rateMismatch: Type.Optional(
    Type.String({
      description:
        "Present while a live device's source sends faster or slower than the rate it declares (event rate_mismatch, until rate_recovered or the acquisition stops): what was measured. Its samples are still framed and recorded at the declared rate.",
    }),
  ),
});

/** GET /system/led/state: one LED. */
export const LedReadingAnswer = Type.Object({
  success: Type.Literal(true),
  index: Type.Enum([...LED_INDICES]),
  color: Type.String({ description: '#RRGGBB' }),
  active: Type.Boolean({ description: 'Lit at this instant (a blinking LED alternates).' }),
  state: Type.Enum(['STATIC', 'BLINKING', 'OFF']),
  blinksPerSecond: Type.Number(),
});

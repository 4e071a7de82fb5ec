/**
 * GET /system/status and GET /system/version (docs/system-paths.md §/system). Status also says where the
 * temperatures come from and which reported figures are simulated rather than measured.
 */
import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import type { ReplayRecordingInfo } from '../../device/replay/recording.js';
import type { SystemContext } from './context.js';
import { DeviceStatusShape, type ReplayStatus } from './schemas.js';
import { PolledAnswer, type WriteEpoch } from '../polled-answer.js';
import { capabilities as capabilitiesOf } from '../../device/capabilities.js';
import { listJsonText } from '../../core/list-json-text.js';

const tags = ['system: device'];

/**
 * How old a GET /system/status answer may be when served again: below the resolution of every
 * figure that moves by itself (uptime in tenths of a second, the battery and temperature models),
 * and far below any poller's period; under a burst of polls the answer is made once per period.
 */
export const STATUS_MAX_AGE_MS = 1;
const JSON_TYPE = 'application/json; charset=utf-8';

/** The API's version: bumped when a path or shape changes incompatibly. */
export const API_VERSION = '1';

/**
 * The figures of the health record (dotted paths) that a model produces rather than a sensor:
 * `battery` as a whole on a simulated or replayed device (a live amplifier's battery, when it has
 * one, is read from it), its `battery.temperature` wherever the
 * pack's is modelled, and `cpu.temperature` where the machine has no sensor.
 */
export function simulatedFigures(
  deviceKind: string,
  batteryTemperature: string,
  cpuTemperature: string,
): string[] {
  const figures: string[] = [];
  if (deviceKind === 'simulated' || deviceKind === 'replay') figures.push('battery');
  if (batteryTemperature === 'simulated') figures.push('battery.temperature');
  if (cpuTemperature === 'simulated') figures.push('cpu.temperature');
  return figures;
}

function replayStatus(recording: ReplayRecordingInfo | undefined): { replay?: Static<typeof ReplayStatus> } {
  if (recording === undefined) return {};
  return {
    replay: {
      file: recording.path,
      format: recording.format,
      variant: recording.variant,
      sampleRate: recording.sampleRate,
      durationSeconds: recording.durationSeconds,
      channels: recording.channels.map((c) => ({ ...c })),
      dropped: recording.dropped.map((d) => ({ ...d })),
      warnings: [...recording.warnings],
    },
  };
}

/** What the status routes read. */
type StatusContext = Pick<
  SystemContext,
  'device' | 'hostMetrics' | 'streams' | 'startedAt' | 'version' | 'tokenWaived'
>;

/** The answer of GET /system/status, made from the device's and the service's state now. */
export function statusAnswer(context: StatusContext) {
  const { device } = context;
  const status = device.status();
  const cpu = context.hostMetrics.cpuThermal();
  const capabilities = capabilitiesOf(device);
  // A device without a battery has no battery figure at all (status.battery is null); a device
  // without a thermal model reads its battery's temperature from a sensor, or has none.
  const batteryCelsius = device.power?.battery().temperature ?? null;
  const batterySource =
    batteryCelsius === null ? 'none' : (device.thermal?.batteryTemperatureSource ?? 'sensor');
  const info = device.info();
  return {
    success: true as const,
    status: {
      state: status.state,
      eeg: status.eeg,
      channels: { played: device.eeg.channels(), unplayed: device.eeg.unplayedChannels() },
      impedance: status.impedance,
      motors: status.motors,
      streams: context.streams(),
      battery: status.battery,
      capabilities: { ...capabilities },
      uptimeSeconds: Math.round((Date.now() - context.startedAt) / 100) / 10,
      version: context.version,
      temperatures: {
        cpu,
        battery: { celsius: batteryCelsius, source: batterySource },
      },
      simulated: simulatedFigures(info.kind, batterySource, cpu.source),
      ...replayStatus(info.recording),
      ...(context.tokenWaived === undefined
        ? {}
        : { tokenWaived: { networks: [...context.tokenWaived.networks], any: context.tokenWaived.any } }),
      ...(status.lost === undefined ? {} : { lost: status.lost }),
      ...(status.amplifier === undefined
        ? {}
        : {
            amplifier: {
              lostSamples: status.amplifier.lostSamples,
              counters: { ...status.amplifier.counters },
            },
          }),
      ...(status.rateMismatch === undefined ? {} : { rateMismatch: status.rateMismatch }),
    },
  };
}

/**
 * Where the channels go in the answer's text, replaced by the lists' kept text: its first
 * occurrence is this slot, since only the state and the EEG figures (the configuration's validated
 * channel names, the owners' ids) come before it, and none holds a NUL.
 */
const CHANNELS_SLOT = '\u0000channels\u0000';
const CHANNELS_SLOT_TEXT = JSON.stringify(CHANNELS_SLOT);

/**
 * The answer's text, the same as `JSON.stringify(statusAnswer(context))`, byte for byte, with the
 * channel lists' text kept per list (core/list-json-text.ts): the device's lists are frozen values,
 * made anew when the channels change and never changed in place (acquisition.ts,
 * live-acquisition.ts), and their text was two thirds of encoding the answer (19 channels with
 * their names, units and positions), which is made up to once per STATUS_MAX_AGE_MS under polling.
 */
export function statusText(context: StatusContext): string {
  const answer = statusAnswer(context);
  const { played, unplayed } = answer.status.channels;
  const text = JSON.stringify({ ...answer, status: { ...answer.status, channels: CHANNELS_SLOT } });
  return text.replace(
    CHANNELS_SLOT_TEXT,
    () => `{"played":${listJsonText(played)},"unplayed":${listJsonText(unplayed)}}`,
  );
}

/** How GET /system/status may keep its answer between polls (createApp's, for the service). */
export interface StatusKeeping {
  /** The app's requests that may change state; without it every request makes its own answer. */
  readonly writes?: WriteEpoch;
  /** How old a kept answer may be (default STATUS_MAX_AGE_MS); tests lengthen it. */
  readonly statusMaxAgeMs?: number;
}

/**
 * Registers GET /system/status and GET /system/version. With `kept.writes` (the app's requests
 * that may change state), the status answer is kept for up to `kept.statusMaxAgeMs` (default
 * STATUS_MAX_AGE_MS) between polls and made afresh after any such request or device event
 * (polled-answer.ts, docs/system-paths.md).
 */
export function statusRoutes(app: FastifyInstance, context: StatusContext, kept: StatusKeeping = {}): void {
  const { device } = context;
  const { writes, statusMaxAgeMs = STATUS_MAX_AGE_MS } = kept;
  const polled = writes === undefined ? undefined : new PolledAnswer<Buffer>(writes, statusMaxAgeMs);
  if (polled !== undefined) {
    const unsubscribe = device.onEvent(() => {
      polled.invalidate();
    });
    app.addHook('onClose', async () => {
      unsubscribe();
    });
  }

  app.get(
    '/system/status',
    {
      schema: {
        tags,
        summary: 'Device state: idle, acquiring, measuring_impedance or moving, with EEG, motors and streams',
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            status: DeviceStatusShape,
          }),
        },
      },
    },
    // Synchronous: the most polled path answers without a promise (docs/performance.md). The kept
    // answer is its UTF-8 bytes: a text would be encoded again for every request that reuses it.
    polled === undefined
      ? () => statusAnswer(context)
      : (_request, reply) =>
          reply.type(JSON_TYPE).send(polled.get(() => Buffer.from(statusText(context), 'utf8'))),
  );

  app.get(
    '/system/version',
    {
      schema: {
        tags,
        summary: 'API, service and hardware versions',
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            version: Type.Object({
              api: Type.String(),
              service: Type.String(),
              hardware: Type.String({ description: 'Hardware revision of the device.' }),
              firmware: Type.String(),
              device: Type.String({
                description: 'simulated, replay, or the live amplifier’s driver (cyton, lsl).',
              }),
              source: Type.Optional(
                Type.String({
                  description:
                    'A live device’s source of samples, in words (its serial port, its LSL stream).',
                }),
              ),
            }),
          }),
        },
      },
    },
    async () => {
      const info = device.info();
      return {
        success: true,
        version: {
          api: API_VERSION,
          service: context.version,
          hardware: info.hardware,
          firmware: info.firmware,
          device: info.kind,
          ...(info.source === undefined ? {} : { source: info.source }),
        },
      };
    },
  );
}

/**
 * The maker's SDK device paths (docs/instinct-sdk.md §Device): the name under
 * /system/system/hostname, the debug command under /system/system/debug, the electrodes under
 * /system/electrodes and the sensors under /system/sensors. Each translates to the service of the
 * reference path: the stored hostname, the peripheral bus, the device's EEG configuration (the one
 * PUT /system/sensors/eeg changes) and acquisition.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import {
  EEG_ELECTRODES,
  ELECTRODES,
  type Electrode,
  electrodesAmong,
  parseElectrode,
} from '../../core/electrodes.js';
import type { Headset } from '../../device/headset.js';
import type { SettingsStore } from '../../platform/store/settings-store.js';
import { HeadsetdError } from '../../core/errors.js';
import { errorResponses } from '../../platform/schemas/responses.js';
import { runDebugCommand } from '../debug-command.js';
import { HostnameBody, renameDevice } from '../rename-device.js';
import { formIntegers } from '../body.js';
import { deviceCall } from '../http-helpers.js';
import {
  DebugForm,
  DebugPacket,
  Electrode as ElectrodeShape,
  ElectrodeAnswer,
  ElectrodeBody,
  NameAnswer,
  SetNameAnswer,
  tags,
} from './schemas.js';
import { instinctSensorRoutes } from './sensors.js';

type DebugFields = Record<
  'cmd_resp' | 'peripheral' | 'peripheral_channels' | 'packet_type',
  string | number
> &
  Partial<Record<'parameter' | 'data', string | number | (string | number)[]>>;

/** One integer of a form field the schema requires once. */
function integer(value: string | number, name: string): number {
  return formIntegers(value, name)[0] as number;
}

function electrodeParam(position: string): Electrode {
  const electrode = parseElectrode(position);
  if (electrode === undefined) {
    throw new HeadsetdError(
      'not_found',
      `No electrode is named ${JSON.stringify(position)}; the 21 are ${ELECTRODES.join(', ')}.`,
      {
        path: '/params/position',
        allowed: [...ELECTRODES],
      },
    );
  }
  return electrode;
}

export function instinctDeviceRoutes(app: FastifyInstance, device: Headset, settings: SettingsStore): void {
  app.get(
    '/system/system/hostname',
    {
      schema: {
        tags,
        summary: 'SDK: the device name (the hostname)',
        response: { 200: NameAnswer, ...errorResponses(400) },
      },
    },
    async () => ({ name: settings.hostname() }),
  );

  app.patch<{ Body: { hostname: string } }>(
    '/system/system/hostname',
    {
      config: { accepts: ['form', 'json'] },
      schema: {
        tags,
        summary: 'SDK: rename the device (form field hostname), as PATCH /system/hostname',
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: HostnameBody,
        response: { 200: SetNameAnswer, ...errorResponses(400, 415, 422, 503, 507) },
      },
    },
    async (request) => {
      const name = renameDevice(settings, request.body.hostname);
      return { message: `The device is named ${name}.`, success: true, name };
    },
  );

  app.post<{ Body: DebugFields }>(
    '/system/system/debug',
    {
      config: { accepts: ['form', 'json'], needs: ['peripheralBus'] },
      schema: {
        tags,
        summary:
          'SDK: one packet to the peripheral bus (form fields in snake case), as POST /system/debug/command',
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: DebugForm,
        response: { 200: DebugPacket, ...errorResponses(400, 415, 422) },
      },
    },
    async (request) => {
      const fields = request.body;
      const answer = await runDebugCommand(device, {
        packetType: integer(fields.packet_type, 'packet_type'),
        cmdResp: integer(fields.cmd_resp, 'cmd_resp'),
        peripheral: integer(fields.peripheral, 'peripheral'),
        peripheralChannels: integer(fields.peripheral_channels, 'peripheral_channels'),
        parameter: formIntegers(fields.parameter, 'parameter'),
        data: formIntegers(fields.data, 'data'),
      });
      return {
        cmd_resp: answer.cmdResp,
        peripheral: answer.peripheral,
        peripheral_channels: answer.peripheralChannels,
        parameter: [...answer.parameter],
        data: [...answer.data],
        packet_type: answer.packetType,
      };
    },
  );

  const electrode = (name: Electrode) => {
    const config = device.eeg.config();
    if (!EEG_ELECTRODES.includes(name)) return { position: name, enabled: true, gain: null };
    return { position: name, enabled: config.channels.includes(name), gain: config.gain };
  };

  app.get(
    '/system/electrodes',
    {
      schema: {
        tags,
        summary:
          'SDK: the 21 electrodes; enabled = acquired (GET /system/config → eeg.channels), gain = the EEG gain',
        response: { 200: Type.Array(ElectrodeShape), ...errorResponses(400) },
      },
    },
    async () => ELECTRODES.map(electrode),
  );

  app.get<{ Params: { position: string } }>(
    '/system/electrodes/:position',
    {
      schema: {
        tags,
        summary: 'SDK: one electrode (any case)',
        params: Type.Object({ position: Type.String() }),
        response: { 200: ElectrodeShape, ...errorResponses(404) },
      },
    },
    async (request) => electrode(electrodeParam(request.params.position)),
  );

  app.patch<{
    Params: { position: string };
    Body: { position: string; enabled: boolean; gain?: number | null };
  }>(
    '/system/electrodes/:position',
    {
      config: { accepts: ['json'] },
      schema: {
        tags,
        summary:
          'SDK: enable or disable an electrode, set the EEG gain: the EEG configuration of PUT /system/sensors/eeg',
        params: Type.Object({ position: Type.String() }),
        body: ElectrodeBody,
        response: { 200: ElectrodeAnswer, ...errorResponses(400, 404, 409, 415, 422) },
      },
    },
    async (request) => {
      const name = electrodeParam(request.params.position);
      const { position, enabled, gain } = request.body;
      if (parseElectrode(position) !== name) {
        throw new HeadsetdError(
          'validation_failed',
          `The body's position ${JSON.stringify(position)} is not the electrode of the path, ${name}.`,
          {
            path: '/position',
          },
        );
      }
      if (!EEG_ELECTRODES.includes(name)) {
        if (!enabled || (gain !== undefined && gain !== null)) {
          throw new HeadsetdError(
            'validation_failed',
            `${name} is a reference electrode: it is always on and has no gain.`,
            {
              path: enabled ? '/gain' : '/enabled',
            },
          );
        }
        return { message: `${name} is always enabled.`, success: true, electrode: electrode(name) };
      }
      const current = device.eeg.config();
      const wanted = new Set<Electrode>(electrodesAmong(current.channels));
      if (enabled) wanted.add(name);
      else wanted.delete(name);
      // The order of the 10-20 list, as GET /system/config shows the channels.
      const channels = EEG_ELECTRODES.filter((e) => wanted.has(e));
      await deviceCall(() =>
        device.eeg.configure({ channels, ...(gain === undefined || gain === null ? {} : { gain }) }),
      );
      return {
        message: `${name} ${enabled ? 'enabled' : 'disabled'}.`,
        success: true,
        electrode: electrode(name),
      };
    },
  );

  instinctSensorRoutes(app, device);
}

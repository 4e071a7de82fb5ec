/**
 * EEG acquisition under /system (docs/system-paths.md §/system): configuration (query `channels`, form or
 * JSON `gain` and `samplingFrequency`), start and stop of the client's hold on acquisition, reset
 * to the configured defaults, and a WebSocket on GET /system/sensors/eeg/stream that sends the
 * device's frames as JSON while acquisition runs.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { type EegConfigChange } from '../../device/headset.js';
import { EEG_GAINS, EEG_SAMPLING_FREQUENCIES } from '../../core/hardware.js';
import { HeadsetdError } from '../../core/errors.js';
import { errorResponses } from '../../platform/schemas/responses.js';
import { restoreConfiguredEeg } from '../../device/settings/config.js';
import { deviceCall, listParam } from '../http-helpers.js';
import { formNumber } from '../body.js';
import { socketRoute } from '../socket-route.js';
import type { SystemContext } from './context.js';
import { ChannelListQuery, EegConfigShape } from './schemas.js';

const tags = ['system: eeg'];

const EegBody = Type.Object(
  {
    gain: Type.Optional(
      Type.Union([Type.Number(), Type.String()], { description: `One of ${EEG_GAINS.join(', ')}.` }),
    ),
    samplingFrequency: Type.Optional(
      Type.Union([Type.Number(), Type.String()], {
        description: `Hz, one of ${EEG_SAMPLING_FREQUENCIES.join(', ')}.`,
      }),
    ),
    channels: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
  },
  { additionalProperties: false },
);

type EegFields = {
  gain?: number | string;
  samplingFrequency?: number | string;
  channels?: string | string[];
};

const ConfigAnswer = Type.Object({ success: Type.Literal(true), config: EegConfigShape });

/**
 * `?gain=8` beside `?channels=…` reads naturally, but gain and samplingFrequency are body fields:
 * the query schema would drop them and the answer say success with nothing changed.
 */
function refuseBodyFieldsInQuery(url: string): void {
  const query = new URLSearchParams(url.split('?')[1] ?? '');
  const misplaced = ['gain', 'samplingFrequency'].find((name) => query.has(name));
  if (misplaced === undefined) return;
  const value = query.get(misplaced) ?? '';
  throw new HeadsetdError(
    'invalid_request',
    `${misplaced} is a body field, not a query parameter (only channels goes in the query): send it as the form field ${misplaced}=${value} or the JSON {"${misplaced}": ${value}}.`,
    { path: `/querystring/${misplaced}` },
  );
}

export function eegRoutes(
  app: FastifyInstance,
  context: Pick<SystemContext, 'device' | 'settings' | 'eegSockets'>,
): void {
  const { device } = context;

  app.put<{ Querystring: { channels?: string[] }; Body: EegFields }>(
    '/system/sensors/eeg',
    {
      config: { accepts: ['form', 'json', 'yaml'] },
      schema: {
        tags,
        summary: 'Configure EEG: channels (query), gain and samplingFrequency (form or JSON)',
        querystring: Type.Object({ channels: ChannelListQuery }),
        body: EegBody,
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        response: { 200: ConfigAnswer, ...errorResponses(400, 409, 415, 422) },
      },
    },
    async (request) => {
      refuseBodyFieldsInQuery(request.url);
      const fields = request.body;
      const gain = formNumber(fields.gain, 'gain');
      const samplingFrequency = formNumber(fields.samplingFrequency, 'samplingFrequency');
      const queryChannels = listParam(request.query.channels);
      const bodyChannels = listParam(fields.channels);
      const change: EegConfigChange = {
        ...(gain === undefined ? {} : { gain }),
        ...(samplingFrequency === undefined ? {} : { samplingFrequency }),
        ...(queryChannels === undefined && bodyChannels === undefined
          ? {}
          : { channels: queryChannels ?? bodyChannels ?? [] }),
      };
      // Device errors name the field; a channel list from the query points into the query.
      const config = await deviceCall(() => device.eeg.configure(change), '', {
        channels: queryChannels !== undefined ? 'querystring/channels' : 'channels',
      });
      return { success: true, config };
    },
  );

  app.post(
    '/system/sensors/eeg/stream',
    {
      schema: {
        tags,
        summary: 'Start EEG acquisition (the client hold)',
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            streaming: Type.Boolean(),
            config: EegConfigShape,
          }),
          ...errorResponses(409, 503),
        },
      },
    },
    async () => {
      const state = await device.eeg.start('client');
      return { success: true, streaming: state.streaming, config: state.config };
    },
  );

  app.delete(
    '/system/sensors/eeg/stream',
    {
      schema: {
        tags,
        summary: "Stop EEG acquisition (releases the client hold; streams' eeg-sources keep theirs)",
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            streaming: Type.Boolean({ description: 'Still true while a stream holds acquisition.' }),
            samples: Type.Integer({ description: 'Sample rows delivered since acquisition last started.' }),
          }),
        },
      },
    },
    async () => {
      const samples = device.eeg.state().samples;
      const state = await device.eeg.stop('client');
      return {
        success: true,
        streaming: state.streaming,
        samples: state.streaming ? state.samples : samples,
      };
    },
  );

  app.delete<{ Querystring: { force?: boolean } }>(
    '/system/sensors/eeg',
    {
      schema: {
        tags,
        summary:
          'Stop acquisition and restore the configured EEG defaults (GET /system/config → eeg); refused while streams read the EEG unless force',
        querystring: Type.Object({
          force: Type.Optional(
            Type.Boolean({
              description:
                "Reset even while streams' eeg-source nodes hold acquisition (otherwise 409 device_busy naming them): the streams report it (degraded, stream_degraded event), take acquisition again with the restored configuration, and recover by themselves.",
            }),
          ),
        }),
        response: { 200: ConfigAnswer, ...errorResponses(409, 422) },
      },
    },
    async (request) => ({
      success: true,
      config: await restoreConfiguredEeg(device, context.settings.configOverrides(), {
        force: request.query.force === true,
      }),
    }),
  );

  socketRoute(
    app,
    '/system/sensors/eeg/stream',
    {
      tags,
      summary:
        'WebSocket: the device frames as JSON ({seq, timestamp, sampleRate, channels, data[row][channel] µV, discontinuity?}) while acquisition runs',
      hide: false,
    },
    (socket) => {
      context.eegSockets.add(socket);
    },
  );
}

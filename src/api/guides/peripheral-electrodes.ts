/**
 * The hardware variants of the guides (docs/system-paths.md §Guide paths), electrode part:
 * /system/peripheral/electrodes/..., on the same `Headset` interface (LEDs, motors and battery are in
 * peripheral-devices.ts). Electrode and motor ids are indices into the
 * 21 names of the reference (PZ = 0 .. FZ = 20); LED ids are 0 (USER) and 1 (STATUS).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ELECTRODES, electrodeAt, electrodesAmong, isEegElectrode } from '../../core/electrodes.js';
import { EEG_GAINS, EEG_SAMPLING_FREQUENCIES } from '../../core/hardware.js';
import { HeadsetdError } from '../../core/errors.js';
import { errorResponses } from '../../platform/schemas/responses.js';
import { deviceCall } from '../http-helpers.js';
import type { GuidesContext } from '../../guides/context.js';
import { requirePart } from '../../device/capabilities.js';

const tags = ['guides: hardware variants'];
const Index = Type.Integer({
  minimum: 0,
  maximum: ELECTRODES.length - 1,
  description: 'Index into the 21 electrode names (PZ = 0 .. FZ = 20).',
});

type ConfigBody = {
  samplingRate?: number;
  gain?: number;
  enabled?: number[];
  inputType?: 'normal' | 'shorted' | 'test';
  bias?: boolean;
};

export function peripheralElectrodeRoutes(
  app: FastifyInstance,
  context: Pick<GuidesContext, 'device'>,
): void {
  const { device } = context;
  let bias = true;

  app.post<{ Body: ConfigBody | undefined }>(
    '/system/peripheral/electrodes/config',
    {
      config: { accepts: ['json', 'yaml'] },
      schema: {
        tags,
        summary: 'Configure the ADC: samplingRate, gain, enabled channel indices, inputType, bias',
        body: Type.Object(
          {
            samplingRate: Type.Optional(Type.Enum([...EEG_SAMPLING_FREQUENCIES], { description: 'Hz.' })),
            gain: Type.Optional(Type.Enum([...EEG_GAINS])),
            enabled: Type.Optional(Type.Array(Index, { minItems: 1, uniqueItems: true })),
            inputType: Type.Optional(
              Type.Enum(['normal', 'shorted', 'test'], {
                description: 'Only normal (electrode inputs) is supported by this device interface.',
              }),
            ),
            bias: Type.Optional(
              Type.Boolean({
                description: 'The driven-right-leg bias drive; recorded, always on in this device.',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            config: Type.Object({
              samplingRate: Type.Number(),
              gain: Type.Number(),
              enabled: Type.Array(Type.Integer()),
              inputType: Type.String(),
              bias: Type.Boolean(),
            }),
          }),
          ...errorResponses(400, 415, 422),
        },
      },
    },
    async (request) => {
      const body = request.body ?? {};
      if (body.inputType !== undefined && body.inputType !== 'normal') {
        throw new HeadsetdError(
          'validation_failed',
          `inputType ${body.inputType} (internal ${body.inputType === 'shorted' ? 'input short' : 'test signal'}) is not available through this device's interface; use normal.`,
          { path: '/inputType' },
        );
      }
      const enabled = body.enabled?.map(electrodeAt);
      const withoutChannel = body.enabled?.findIndex((i) => !isEegElectrode(electrodeAt(i))) ?? -1;
      if (withoutChannel >= 0) {
        throw new HeadsetdError(
          'validation_failed',
          'Indices 11 (CMS) and 12 (DRL) have no EEG channel; leave them out of enabled.',
          {
            path: `/enabled/${withoutChannel}`,
          },
        );
      }
      if (body.bias !== undefined) bias = body.bias;
      const config = await deviceCall(() =>
        device.eeg.configure({
          ...(body.samplingRate === undefined ? {} : { samplingFrequency: body.samplingRate }),
          ...(body.gain === undefined ? {} : { gain: body.gain }),
          ...(enabled === undefined ? {} : { channels: enabled }),
        }),
      );
      return {
        success: true,
        config: {
          samplingRate: config.samplingFrequency,
          gain: config.gain,
          enabled: electrodesAmong(config.channels).map((e) => ELECTRODES.indexOf(e)),
          inputType: 'normal',
          bias,
        },
      };
    },
  );

  app.post(
    '/system/peripheral/electrodes/impedance',
    {
      config: { needs: ['impedance'] },
      schema: {
        tags,
        summary: 'Measure all 21 electrodes: magnitude in Ω by index',
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            electrodes: Type.Array(
              Type.Object({
                index: Type.Integer(),
                magnitude: Type.Number({ description: 'Ω.' }),
                phase: Type.Number({
                  description: 'Degrees; 0: the lead-off measurement yields the magnitude only.',
                }),
              }),
            ),
          }),
          ...errorResponses(409),
        },
      },
    },
    async () => {
      const ohms = await requirePart(device, 'impedance').measure();
      return {
        success: true,
        electrodes: ELECTRODES.map((e, index) => ({ index, magnitude: ohms[e] ?? 0, phase: 0 })),
      };
    },
  );

  app.post(
    '/system/peripheral/electrodes/stream',
    {
      schema: {
        tags,
        summary: 'Start acquisition (as POST /system/sensors/eeg/stream)',
        response: {
          200: Type.Object({ success: Type.Literal(true), streaming: Type.Boolean() }),
          ...errorResponses(409),
        },
      },
    },
    async () => ({ success: true, streaming: (await device.eeg.start('client')).streaming }),
  );

  app.post(
    '/system/peripheral/electrodes/stop',
    {
      schema: {
        tags,
        summary: 'Stop acquisition (as DELETE /system/sensors/eeg/stream)',
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            streaming: Type.Boolean(),
            samples: Type.Integer(),
          }),
        },
      },
    },
    async () => {
      const samples = device.eeg.state().samples;
      const state = await device.eeg.stop('client');
      return { success: true, streaming: state.streaming, samples };
    },
  );
}

/**
 * The hardware variants of the guides (API-NOTES.md §Guide paths): /system/peripheral/... and
 * /system/battery, on the same `Headset` interface. Electrode and motor ids are indices into the
 * 21 names of the reference (PZ = 0 .. FZ = 20); LED ids are 0 (USER) and 1 (STATUS).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ELECTRODES, type Electrode, isEegElectrode } from '../../device/electrodes.js';
import {
  EEG_GAINS,
  EEG_SAMPLING_FREQUENCIES,
  LED_INDICES,
  MOTOR_MAX_POSITION,
  type MotorCommand,
} from '../../device/headset.js';
import { HeadsetdError } from '../../errors.js';
import { errorResponses } from '../../schemas/responses.js';
import { deviceCall } from '../system/http-helpers.js';
import type { GuidesContext } from './context.js';

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

function electrodeAt(index: number): Electrode {
  return ELECTRODES[index] as Electrode;
}

/** Battery health from the capacity left of the design capacity. */
export function batteryHealth(maxCapacity: number, designedCapacity: number): 'good' | 'fair' | 'poor' {
  const ratio = designedCapacity > 0 ? maxCapacity / designedCapacity : 1;
  return ratio >= 0.8 ? 'good' : ratio >= 0.6 ? 'fair' : 'poor';
}

export function peripheralRoutes(app: FastifyInstance, context: GuidesContext): void {
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
          enabled: config.channels.map((e) => ELECTRODES.indexOf(e)),
          inputType: 'normal',
          bias,
        },
      };
    },
  );

  app.post(
    '/system/peripheral/electrodes/impedance',
    {
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
      const ohms = await device.impedance.measure();
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

  const ledView = (id: number) => {
    const led = device.leds.read(LED_INDICES[id] ?? 'USER');
    return { id, state: { on: led.state !== 'OFF', color: led.color, blinkRate: led.blinksPerSecond } };
  };

  app.get(
    '/system/peripheral/leds',
    {
      schema: {
        tags,
        summary: 'LEDs by id: 0 USER, 1 STATUS',
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            leds: Type.Array(
              Type.Object({
                id: Type.Integer(),
                state: Type.Object({ on: Type.Boolean(), color: Type.String(), blinkRate: Type.Number() }),
              }),
            ),
          }),
        },
      },
    },
    async () => ({ success: true, leds: LED_INDICES.map((_, id) => ledView(id)) }),
  );

  app.put<{ Params: { id: number }; Body: { on?: boolean; color?: string; blinkRate?: number } | undefined }>(
    '/system/peripheral/leds/:id',
    {
      config: { accepts: ['json', 'yaml'] },
      schema: {
        tags,
        summary: 'Set an LED: on, color, blinkRate (blinks per second, 0..20)',
        params: Type.Object({
          id: Type.Integer({ minimum: 0, maximum: LED_INDICES.length - 1, description: '0 USER, 1 STATUS.' }),
        }),
        body: Type.Object(
          {
            on: Type.Optional(Type.Boolean()),
            color: Type.Optional(Type.String()),
            blinkRate: Type.Optional(Type.Number()),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            id: Type.Integer(),
            state: Type.Object({ on: Type.Boolean(), color: Type.String(), blinkRate: Type.Number() }),
          }),
          ...errorResponses(400, 415, 422),
        },
      },
    },
    async (request) => {
      const { id } = request.params;
      const body = request.body ?? {};
      const color = body.on === false ? '#000000' : body.color;
      await deviceCall(
        () =>
          device.leds.set({
            index: LED_INDICES[id] ?? 'USER',
            ...(color === undefined ? {} : { color }),
            ...(body.blinkRate === undefined ? {} : { blinksPerSecond: body.blinkRate }),
          }),
        '',
        { blinksPerSecond: 'blinkRate' },
      );
      return { success: true, ...ledView(id) };
    },
  );

  const motorsView = (electrodes: readonly Electrode[]) => {
    const positions = device.motors.positions(electrodes);
    const states = device.motors.states(electrodes);
    return electrodes.map((e) => ({
      id: ELECTRODES.indexOf(e),
      position: positions[e] ?? 0,
      state: states[e] ?? 0,
    }));
  };

  app.get(
    '/system/peripheral/motors',
    {
      schema: {
        tags,
        summary: 'Motors by id (electrode index): position in steps and state code',
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            motors: Type.Array(
              Type.Object({ id: Type.Integer(), position: Type.Number(), state: Type.Integer() }),
            ),
          }),
        },
      },
    },
    async () => ({ success: true, motors: motorsView(ELECTRODES) }),
  );

  app.post<{ Body: { motors: { id: number; position: number }[] } }>(
    '/system/peripheral/motors/move',
    {
      config: { accepts: ['json', 'yaml'] },
      schema: {
        tags,
        summary: 'Move motors to absolute positions (steps); answers at once with their states',
        body: Type.Object(
          {
            motors: Type.Array(
              Type.Object(
                { id: Index, position: Type.Number({ minimum: 0, maximum: MOTOR_MAX_POSITION }) },
                { additionalProperties: false },
              ),
              { minItems: 1 },
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            motors: Type.Array(
              Type.Object({ id: Type.Integer(), position: Type.Number(), state: Type.Integer() }),
            ),
          }),
          ...errorResponses(400, 409, 415, 422),
        },
      },
    },
    async (request) => {
      const electrodes = request.body.motors.map((m) => electrodeAt(m.id));
      const positions = device.motors.positions(electrodes);
      const commands: MotorCommand[] = [];
      for (const { id, position } of request.body.motors) {
        const e = electrodeAt(id);
        const delta = position - (positions[e] ?? 0);
        if (Math.abs(delta) > 1e-6)
          commands.push({
            electrode: e,
            movement: delta > 0 ? 'RELEASE' : 'RETRACT',
            displacement: Math.abs(delta),
          });
      }
      if (commands.length > 0) await device.motors.move(commands);
      return { success: true, motors: motorsView(electrodes) };
    },
  );

  app.get(
    '/system/battery',
    {
      schema: {
        tags,
        summary: 'Battery: level %, charging, minutes remaining, temperature, health',
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            level: Type.Number({ description: 'Percent.' }),
            charging: Type.Boolean(),
            timeRemaining: Type.Union([Type.Number(), Type.Null()], {
              description: 'Minutes; null while charging.',
            }),
            temperature: Type.Union([Type.Number(), Type.Null()], {
              description: '°C; null: this device reports no battery temperature.',
            }),
            health: Type.Enum(['good', 'fair', 'poor']),
          }),
        },
      },
    },
    async () => {
      const battery = device.power.battery();
      return {
        success: true,
        level: battery.percent,
        charging: battery.isCharging,
        timeRemaining: battery.timeRemaining,
        temperature: null,
        health: batteryHealth(battery.maxCapacity, battery.designedCapacity),
      };
    },
  );
}

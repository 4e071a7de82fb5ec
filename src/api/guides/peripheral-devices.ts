/**
 * The hardware variants of the guides (docs/system-paths.md §Guide paths), device part:
 * /system/peripheral/leds, /system/peripheral/motors and /system/battery. Motor ids are indices into
 * the 21 names of the reference (PZ = 0 .. FZ = 20); LED ids are 0 (USER) and 1 (STATUS).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ELECTRODES, type Electrode, electrodeAt } from '../../core/electrodes.js';
import { batteryHealth } from '../../platform/metrics/battery-health.js';
import { LED_INDICES, MOTOR_MAX_POSITION, type MotorCommand } from '../../device/headset.js';
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

export function peripheralDeviceRoutes(app: FastifyInstance, context: Pick<GuidesContext, 'device'>): void {
  const { device } = context;

  const ledView = (id: number) => {
    const led = requirePart(device, 'leds').read(LED_INDICES[id] ?? 'USER');
    return { id, state: { on: led.state !== 'OFF', color: led.color, blinkRate: led.blinksPerSecond } };
  };

  app.get(
    '/system/peripheral/leds',
    {
      config: { needs: ['leds'] },
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
      config: { accepts: ['json', 'yaml'], needs: ['leds'] },
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
          requirePart(device, 'leds').set({
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
    const positions = requirePart(device, 'motors').positions(electrodes);
    const states = requirePart(device, 'motors').states(electrodes);
    return electrodes.map((e) => ({
      id: ELECTRODES.indexOf(e),
      position: positions[e] ?? 0,
      state: states[e] ?? 0,
    }));
  };

  app.get(
    '/system/peripheral/motors',
    {
      config: { needs: ['motors'] },
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
      config: { accepts: ['json', 'yaml'], needs: ['motors'] },
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
      const positions = requirePart(device, 'motors').positions(electrodes);
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
      if (commands.length > 0) await requirePart(device, 'motors').move(commands);
      return { success: true, motors: motorsView(electrodes) };
    },
  );

  app.get(
    '/system/battery',
    {
      config: { needs: ['battery'] },
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
              description:
                '°C of the pack: its sensor, or the thermal model of the simulated headset (GET /system/status lists simulated figures); null only for a device with neither.',
            }),
            health: Type.Enum(['good', 'fair', 'poor']),
          }),
        },
      },
    },
    async () => {
      const battery = requirePart(device, 'battery').battery();
      return {
        success: true,
        level: battery.percent,
        charging: battery.isCharging,
        timeRemaining: battery.timeRemaining,
        temperature: battery.temperature,
        health: batteryHealth(battery.maxCapacity, battery.designedCapacity),
      };
    },
  );
}

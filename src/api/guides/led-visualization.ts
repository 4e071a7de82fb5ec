/**
 * POST /leds/impedance-visualization (docs/system-paths.md §Guide paths). While
 * enabled, after each impedance measurement (whoever made it: a session, a schedule, /system) the
 * STATUS LED takes the colour of the worst level among the latest values, at most once per
 * `updateInterval`. It measures nothing itself, so it never stands in the way of EEG acquisition.
 * Disabling restores the STATUS LED as it was before.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { ElectrodeMap, LedSettings } from '../../device/headset.js';
import {
  COLOR_SCHEMES,
  type ColorScheme,
  IMPEDANCE_LEVELS,
  impedanceLevel,
  LED_LEVEL_COLORS,
  type LevelThresholds,
} from '../../device/impedance-levels.js';
import { errorResponses } from '../../schemas/responses.js';
import { assertThresholdsAscending } from '../../device/config.js';
import type { GuidesContext } from '../../guides/context.js';

interface Visualization {
  enabled: boolean;
  colorScheme: ColorScheme;
  updateInterval: number;
  thresholds: LevelThresholds;
}

type VisualizationBody = Partial<Omit<Visualization, 'thresholds'>> & {
  thresholds?: Partial<LevelThresholds>;
};

/** The worst level among `values` (kΩ). */
export function worstLevel(values: ElectrodeMap<number>, thresholds: LevelThresholds) {
  let worst = -1;
  for (const kohms of Object.values(values))
    worst = Math.max(worst, IMPEDANCE_LEVELS.indexOf(impedanceLevel(kohms, thresholds)));
  return worst < 0 ? undefined : IMPEDANCE_LEVELS[worst];
}

export function ledVisualizationRoutes(app: FastifyInstance, context: GuidesContext): void {
  const defaults = context.config();
  const state: Visualization = {
    enabled: false,
    colorScheme: defaults.ledVisualization.colorScheme,
    updateInterval: defaults.ledVisualization.updateInterval,
    thresholds: defaults.impedance.thresholds,
  };
  let saved: LedSettings | undefined;
  let lastUpdate = 0;

  const show = async (): Promise<void> => {
    const level = worstLevel(context.latest.all(), state.thresholds);
    if (level === undefined) return;
    lastUpdate = Date.now();
    await context.device.leds.set({
      index: 'STATUS',
      color: LED_LEVEL_COLORS[state.colorScheme][level],
      blinksPerSecond: 0,
    });
  };
  const unsubscribe = context.latest.onMeasured(() => {
    if (state.enabled && Date.now() - lastUpdate >= state.updateInterval) void show();
  });
  context.onClose(unsubscribe);

  const enable = async (on: boolean): Promise<void> => {
    if (on && !state.enabled) {
      const led = context.device.leds.read('STATUS');
      saved = { index: 'STATUS', color: led.color, blinksPerSecond: led.blinksPerSecond };
      state.enabled = true;
      await show();
    } else if (!on && state.enabled) {
      state.enabled = false;
      if (saved !== undefined) await context.device.leds.set(saved);
    }
  };
  if (defaults.ledVisualization.enabled) void enable(true);

  app.post<{ Body: VisualizationBody | undefined }>(
    '/leds/impedance-visualization',
    {
      config: { accepts: ['json', 'yaml'] },
      schema: {
        tags: ['guides: leds'],
        summary: 'Show the worst electrode impedance level on the STATUS LED',
        body: Type.Object(
          {
            enabled: Type.Optional(Type.Boolean()),
            colorScheme: Type.Optional(Type.Enum([...COLOR_SCHEMES])),
            updateInterval: Type.Optional(
              Type.Integer({
                minimum: 100,
                maximum: 60_000,
                description: 'ms, at most one LED change per interval.',
              }),
            ),
            thresholds: Type.Optional(
              Type.Object(
                {
                  excellent: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
                  good: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
                  acceptable: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
                  poor: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
                },
                { additionalProperties: false, description: 'kΩ upper bounds of the levels.' },
              ),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            enabled: Type.Boolean(),
            colorScheme: Type.String(),
            updateInterval: Type.Integer(),
            thresholds: Type.Object({
              excellent: Type.Number(),
              good: Type.Number(),
              acceptable: Type.Number(),
              poor: Type.Number(),
            }),
            level: Type.Union([Type.String(), Type.Null()], { description: 'The worst level shown now.' }),
            color: Type.String({ description: 'The STATUS LED colour now.' }),
          }),
          ...errorResponses(400, 415, 422),
        },
      },
    },
    async (request) => {
      const body = request.body ?? {};
      const thresholds = { ...state.thresholds, ...body.thresholds };
      assertThresholdsAscending(thresholds, '/thresholds');
      state.thresholds = thresholds;
      if (body.colorScheme !== undefined) state.colorScheme = body.colorScheme;
      if (body.updateInterval !== undefined) state.updateInterval = body.updateInterval;
      await enable(body.enabled ?? true);
      if (state.enabled) await show();
      return {
        success: true,
        enabled: state.enabled,
        colorScheme: state.colorScheme,
        updateInterval: state.updateInterval,
        thresholds: state.thresholds,
        level: worstLevel(context.latest.all(), state.thresholds) ?? null,
        color: context.device.leds.read('STATUS').color,
      };
    },
  );
}

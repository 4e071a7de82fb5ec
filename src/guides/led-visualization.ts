/**
 * The impedance visualisation on the STATUS LED (POST /leds/impedance-visualization): while
 * enabled, after each impedance measurement (whoever made it: a session, a schedule, /system) the
 * STATUS LED takes the colour of the worst level among the latest values, at most once per
 * `updateInterval`. It measures nothing itself, so it never stands in the way of EEG acquisition.
 * Disabling restores the STATUS LED as it was before.
 */
import type { ElectrodeMap, LedSettings } from '../device/headset.js';
import {
  type ColorScheme,
  IMPEDANCE_LEVELS,
  type ImpedanceLevel,
  impedanceLevel,
  LED_LEVEL_COLORS,
  type LevelThresholds,
} from './headmap/impedance-levels.js';
import { assertThresholdsAscending } from '../device/settings/config.js';
import type { GuidesContext } from './context.js';
import { requirePart } from '../device/capabilities.js';

export interface Visualization {
  enabled: boolean;
  colorScheme: ColorScheme;
  updateInterval: number;
  thresholds: LevelThresholds;
}

export type VisualizationChange = Partial<Omit<Visualization, 'thresholds'>> & {
  thresholds?: Partial<LevelThresholds>;
};

/** The worst level among `values` (kΩ). */
export function worstLevel(
  values: ElectrodeMap<number>,
  thresholds: LevelThresholds,
): ImpedanceLevel | undefined {
  let worst = -1;
  for (const kohms of Object.values(values))
    worst = Math.max(worst, IMPEDANCE_LEVELS.indexOf(impedanceLevel(kohms, thresholds)));
  return worst < 0 ? undefined : IMPEDANCE_LEVELS[worst];
}

export class LedVisualization {
  private readonly state: Visualization;
  private saved: LedSettings | undefined;
  private lastUpdate = 0;

  constructor(private readonly context: GuidesContext) {
    const defaults = context.config();
    this.state = {
      enabled: false,
      colorScheme: defaults.ledVisualization.colorScheme,
      updateInterval: defaults.ledVisualization.updateInterval,
      thresholds: defaults.impedance.thresholds,
    };
    const unsubscribe = context.latest.onMeasured(() => {
      if (this.state.enabled && Date.now() - this.lastUpdate >= this.state.updateInterval) void this.show();
    });
    context.onClose(unsubscribe);
    if (defaults.ledVisualization.enabled) void this.enable(true);
  }

  /**
   * Applies a change (thresholds checked ascending, 422 otherwise; `enabled` defaults to true) and
   * answers the visualisation now, with the worst level shown and the LED's colour.
   */
  async configure(
    change: VisualizationChange,
  ): Promise<Visualization & { level: ImpedanceLevel | null; color: string }> {
    const thresholds = { ...this.state.thresholds, ...change.thresholds };
    assertThresholdsAscending(thresholds, '/thresholds');
    this.state.thresholds = thresholds;
    if (change.colorScheme !== undefined) this.state.colorScheme = change.colorScheme;
    if (change.updateInterval !== undefined) this.state.updateInterval = change.updateInterval;
    await this.enable(change.enabled ?? true);
    if (this.state.enabled) await this.show();
    return {
      ...this.state,
      level: worstLevel(this.context.latest.all(), this.state.thresholds) ?? null,
      color: requirePart(this.context.device, 'leds').read('STATUS').color,
    };
  }

  private async show(): Promise<void> {
    const level = worstLevel(this.context.latest.all(), this.state.thresholds);
    if (level === undefined) return;
    this.lastUpdate = Date.now();
    await requirePart(this.context.device, 'leds').set({
      index: 'STATUS',
      color: LED_LEVEL_COLORS[this.state.colorScheme][level],
      blinksPerSecond: 0,
    });
  }

  private async enable(on: boolean): Promise<void> {
    if (on && !this.state.enabled) {
      const led = requirePart(this.context.device, 'leds').read('STATUS');
      this.saved = { index: 'STATUS', color: led.color, blinksPerSecond: led.blinksPerSecond };
      this.state.enabled = true;
      await this.show();
    } else if (!on && this.state.enabled) {
      this.state.enabled = false;
      if (this.saved !== undefined) await requirePart(this.context.device, 'leds').set(this.saved);
    }
  }
}

/**
 * Impedance quality levels (kΩ; docs/systems.md §Head map): excellent below 5, good 5–10,
 * acceptable 10–20, poor 20–50, very poor above 50; thresholds configurable (GET /system/config).
 * Colours: green, blue, yellow, orange, red; a colour-blind-safe scheme (Okabe–Ito) besides.
 */

export const IMPEDANCE_LEVELS = ['excellent', 'good', 'acceptable', 'poor', 'very_poor'] as const;
export type ImpedanceLevel = (typeof IMPEDANCE_LEVELS)[number];

/** Upper bounds (kΩ, exclusive) of the first four levels. */
export interface LevelThresholds {
  readonly excellent: number;
  readonly good: number;
  readonly acceptable: number;
  readonly poor: number;
}

export const DEFAULT_THRESHOLDS: LevelThresholds = { excellent: 5, good: 10, acceptable: 20, poor: 50 };

export const COLOR_SCHEMES = ['default', 'colorblind'] as const;
export type ColorScheme = (typeof COLOR_SCHEMES)[number];

/**
 * Fill colours by level. `colorblind` takes Okabe–Ito colours (bluish green, sky blue, yellow,
 * orange, reddish purple): distinct in hue and lightness under the common colour-vision deficiencies.
 */
export const LEVEL_COLORS: Readonly<Record<ColorScheme, Readonly<Record<ImpedanceLevel, string>>>> = {
  default: {
    excellent: '#2E9E44',
    good: '#1F6FD1',
    acceptable: '#F2C80F',
    poor: '#F28C28',
    very_poor: '#D62728',
  },
  colorblind: {
    excellent: '#009E73',
    good: '#56B4E9',
    acceptable: '#F0E442',
    poor: '#E69F00',
    very_poor: '#CC79A7',
  },
};

/** LED colours by level (pure, bright hues read best on an LED). */
export const LED_LEVEL_COLORS: Readonly<Record<ColorScheme, Readonly<Record<ImpedanceLevel, string>>>> = {
  default: {
    excellent: '#00FF00',
    good: '#0000FF',
    acceptable: '#FFFF00',
    poor: '#FF8000',
    very_poor: '#FF0000',
  },
  colorblind: {
    excellent: '#00FFC0',
    good: '#40C0FF',
    acceptable: '#FFFF00',
    poor: '#FFA000',
    very_poor: '#FF4000',
  },
};

/** Level of an impedance in kΩ. */
export function impedanceLevel(
  kohms: number,
  thresholds: LevelThresholds = DEFAULT_THRESHOLDS,
): ImpedanceLevel {
  if (kohms < thresholds.excellent) return 'excellent';
  if (kohms < thresholds.good) return 'good';
  if (kohms < thresholds.acceptable) return 'acceptable';
  if (kohms < thresholds.poor) return 'poor';
  return 'very_poor';
}

/** The level's range for a legend, e.g. `5–10 kΩ`. */
export function levelRange(level: ImpedanceLevel, t: LevelThresholds = DEFAULT_THRESHOLDS): string {
  switch (level) {
    case 'excellent':
      return `< ${t.excellent} kΩ`;
    case 'good':
      return `${t.excellent}–${t.good} kΩ`;
    case 'acceptable':
      return `${t.good}–${t.acceptable} kΩ`;
    case 'poor':
      return `${t.acceptable}–${t.poor} kΩ`;
    case 'very_poor':
      return `> ${t.poor} kΩ`;
  }
}

/** Ω → kΩ rounded to 0.01 (the unit of the guide paths). */
export function toKiloohms(ohms: number): number {
  return Math.round(ohms / 10) / 100;
}

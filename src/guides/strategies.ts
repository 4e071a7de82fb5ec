/**
 * Strategy profiles of the closed-loop electrode optimizer (docs/systems.md §Strategies). Steps
 * are motor steps (0.1 mm). The pressure limit counts steps pressed past the position where
 * contact was detected; the device's own safe force limit (a stall, 20 steps past the touch on
 * the simulated headset) stops a motor before any profile's limit can hurt.
 */

export interface StrategyProfile {
  /** Steps pressed per attempt once the electrode touches the scalp. */
  readonly stepSize: number;
  /** Steps past contact the optimizer never exceeds. */
  readonly pressureLimit: number;
  /** ms waited after each move before measuring (the contact settles). */
  readonly settleMs: number;
  /** Steps per move while looking for the scalp (impedance still in the MΩ range). */
  readonly approachStep: number;
  readonly description: string;
}

export const STRATEGIES = {
  gentle: {
    stepSize: 1,
    pressureLimit: 12,
    settleMs: 500,
    approachStep: 3,
    description: 'Small steps, long settling, moderate pressure: comfort first (long sessions, children).',
  },
  aggressive: {
    stepSize: 3,
    pressureLimit: 18,
    settleMs: 100,
    approachStep: 5,
    description: 'Large steps, short settling, up to near the safe force: fastest, least comfortable.',
  },
  research: {
    stepSize: 2,
    pressureLimit: 15,
    settleMs: 300,
    approachStep: 3,
    description: 'Balanced: low impedance on every channel within a minute or two.',
  },
  clinical: {
    stepSize: 1,
    pressureLimit: 14,
    settleMs: 1000,
    approachStep: 3,
    description: 'Single steps with a full second of settling: stable values before each decision.',
  },
  bci: {
    stepSize: 2,
    pressureLimit: 12,
    settleMs: 200,
    approachStep: 4,
    description: 'Quick and light: good-enough contact for a brain-computer interface session.',
  },
} as const satisfies Record<string, StrategyProfile>;

export type StrategyName = keyof typeof STRATEGIES;
export const STRATEGY_NAMES = Object.keys(STRATEGIES) as StrategyName[];

/** Measured impedance (kΩ) under which an electrode counts as touching the scalp (air reads ≥ 1.5 MΩ). */
export const CONTACT_KOHMS = 1000;

/**
 * Top-view positions of the headset's electrodes for the impedance head map: the 10-20 system
 * projected onto a disc (nose up, left ear left), in units of the head radius. The equator
 * (Fpz, T3, Oz, T4) lies at 0.8 and the midline electrodes (Fz, Cz, Pz) at 20 % steps, as in the
 * usual topographic plots. CMS and DRL sit behind and below the ears, over the mastoids, where
 * this headset's reference and driven-right-leg electrodes rest: outside the disc of the scalp.
 */
import type { Electrode } from './electrodes.js';

export interface HeadPoint {
  /** −1 (left) .. 1 (right). */
  readonly x: number;
  /** −1 (back) .. 1 (nose). */
  readonly y: number;
}

const EQUATOR = 0.8;

function polar(degrees: number, radius = EQUATOR): HeadPoint {
  const radians = (degrees * Math.PI) / 180;
  return { x: round(radius * Math.cos(radians)), y: round(radius * Math.sin(radians)) };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

export const HEAD_POSITIONS: Readonly<Record<Electrode, HeadPoint>> = {
  FP1: polar(108),
  FP2: polar(72),
  F7: polar(144),
  F8: polar(36),
  T3: polar(180),
  T4: polar(0),
  T5: polar(216),
  T6: polar(324),
  O1: polar(252),
  O2: polar(288),
  FZ: { x: 0, y: 0.4 },
  CZ: { x: 0, y: 0 },
  PZ: { x: 0, y: -0.4 },
  F3: { x: -0.34, y: 0.43 },
  F4: { x: 0.34, y: 0.43 },
  C3: { x: -0.4, y: 0 },
  C4: { x: 0.4, y: 0 },
  P3: { x: -0.34, y: -0.43 },
  P4: { x: 0.34, y: -0.43 },
  CMS: { x: -0.93, y: -0.78 },
  DRL: { x: 0.93, y: -0.78 },
};

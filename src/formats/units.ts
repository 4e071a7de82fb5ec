/**
 * The units sources declare for their channels, read into the units of frames: a voltage is scaled
 * to µV (the unit of every EEG frame), any other unit is kept as it is. One table for every source
 * that declares units: an EDF/BDF signal's physical dimension (the replay device) and an LSL
 * channel's `unit` (the LSL reader, src/lsl/columns.ts).
 *
 * The symbols (`nV`, `uV`, `µV`, `mV`, `V`, in any case) and the words LSL outlets write
 * (`microvolts`, `Volts`) are voltages. An EDF header is ASCII and the reader shows any other byte
 * as `?`: a µ written in Latin-1 (one byte) or UTF-8 (two) arrives as `?V` or `??V`, and nothing
 * else plausible does, so those are µV too.
 */
import { MICROVOLT } from '../core/frame.js';

/** µV per unit, by unit in lower case (`µ` as the micro sign or Greek mu). */
const MICROVOLTS_PER_UNIT: Readonly<Record<string, number>> = {
  nv: 1e-3,
  uv: 1,
  µv: 1,
  μv: 1,
  '?v': 1,
  '??v': 1,
  microv: 1,
  mv: 1e3,
  v: 1e6,
  volt: 1e6,
  volts: 1e6,
  millivolt: 1e3,
  millivolts: 1e3,
  microvolt: 1,
  microvolts: 1,
  nanovolt: 1e-3,
  nanovolts: 1e-3,
};

/** The multiplier from `unit` to µV, or undefined for a unit that is not a voltage (an empty one included). */
export function microvoltsPerUnit(unit: string): number | undefined {
  return MICROVOLTS_PER_UNIT[unit.trim().toLowerCase()];
}

/** How a channel's samples reach frames: multiplied by `scale`, in `unit`. */
export interface FrameUnit {
  /** Multiplier from the declared unit to `unit`: to µV for a voltage, 1 for any other unit. */
  readonly scale: number;
  /** The frame's unit for the channel: `µV` for a voltage, else the declared unit (trimmed). */
  readonly unit: string;
}

/**
 * The frame unit of a channel declared in `declared`: a voltage scaled to µV, another unit kept
 * (`g`, `m/s^2`, `counts`), no unit at all taken as µV already (what EEG outlets that declare
 * nothing send, and what a frame without `units` means).
 */
export function frameUnitOf(declared: string): FrameUnit {
  const unit = declared.trim();
  if (unit === '') return { scale: 1, unit: MICROVOLT };
  const scale = microvoltsPerUnit(unit);
  return scale === undefined ? { scale: 1, unit } : { scale, unit: MICROVOLT };
}

/**
 * POST /electrodes/diagnose as a use case: one electrode's motor, impedance (kΩ) and, at level
 * `full`, about a second of its EEG, composed into a verdict and one piece of advice. While EEG is
 * acquired the impedance cannot be measured (they are exclusive): the latest known value stands in.
 */
import { type Electrode, MIXED_CASE } from '../core/electrodes.js';
import { impedanceLevel, toKiloohms } from './headmap/impedance-levels.js';
import { verdictFor } from './advice.js';
import type { GuidesContext } from './context.js';
import { sampleChannel } from './signal-check.js';
import { requirePart } from '../device/capabilities.js';

export type DiagnosticLevel = 'basic' | 'full';

export interface Diagnosis {
  /** The electrode in the mixed 10-20 case. */
  electrode: string;
  diagnosticLevel: DiagnosticLevel;
  motor: { position: number; state: number };
  /** kΩ; null when EEG acquisition prevents measuring and none is known. */
  impedance: number | null;
  /** µV, mean removed (level full). */
  noiseRms: number | null;
  /** µV at 50 or 60 Hz (level full). */
  lineNoise: number | null;
  verdict: string;
  advice: string;
}

export async function diagnoseElectrode(
  context: Pick<GuidesContext, 'device' | 'latest' | 'config'>,
  electrode: Electrode,
  level: DiagnosticLevel,
): Promise<Diagnosis> {
  const { device } = context;
  const acquiring = device.eeg.state().streaming;
  const impedance = acquiring
    ? (context.latest.get(electrode) ?? null)
    : toKiloohms((await requirePart(device, 'impedance').measure([electrode]))[electrode] ?? Number.NaN);
  const figures = level === 'full' ? await sampleChannel(device, electrode) : undefined;
  const position = requirePart(device, 'motors').positions([electrode])[electrode] ?? 0;
  const state = requirePart(device, 'motors').states([electrode])[electrode] ?? 0;
  const quality =
    impedance === null ? undefined : impedanceLevel(impedance, context.config().impedance.thresholds);
  const { verdict, advice } = verdictFor(impedance, quality, state, figures?.lineNoise ?? null);
  return {
    electrode: MIXED_CASE[electrode],
    diagnosticLevel: level,
    motor: { position, state },
    impedance,
    noiseRms: figures?.noiseRms ?? null,
    lineNoise: figures?.lineNoise ?? null,
    verdict,
    advice,
  };
}

/**
 * What the Outputs panel makes of a frame a `websocket` node sends (its JSON text form): the latest
 * value of each channel with its unit (`units`, absent = every channel in µV), and which view fits
 * the channels' names. The processing nodes name derived channels `<input channel>.<quantity>`
 * (`O1.alpha`: band power) or `<quantity>.<label>` (`score.12Hz`, `frequency.top`: SSVEP).
 */
import type { FrameJson } from './api-types';

/** A frame as the panel reads it: `units` and `annotation` are carried when the service sends them. */
export type OutputFrame = FrameJson & { units?: readonly string[]; annotation?: string };

export interface Reading {
  channel: string;
  value: number;
  unit: string;
}

/** The unit of a channel when the frame names none (docs/api.md §Frames). */
export const DEFAULT_UNIT = 'µV';

/** The last row of the frame: the newest value of each channel, with its unit. */
export function latestReadings(frame: OutputFrame): Reading[] {
  const row = frame.data[frame.data.length - 1] ?? [];
  return frame.channels.map((channel, c) => ({
    channel,
    value: Number(row[c] ?? Number.NaN),
    unit: frame.units?.[c] ?? DEFAULT_UNIT,
  }));
}

export type OutputKind = 'band-power' | 'ssvep' | 'table';

const BAND_CHANNEL = /^(.+)\.([A-Za-z][\w-]*)$/;

/**
 * `ssvep` when a channel is a `score.<label>`; `band-power` when every channel is
 * `<channel>.<band>` (a band being a word: `alpha`, `beta`, `low-gamma`); anything else a table.
 */
export function outputKind(channels: readonly string[]): OutputKind {
  if (channels.some((c) => c.startsWith('score.'))) return 'ssvep';
  if (channels.length > 0 && channels.every((c) => BAND_CHANNEL.test(c))) return 'band-power';
  return 'table';
}

export interface BandGroup {
  band: string;
  bars: Reading[];
}

/** Band-power readings grouped by band, bands and channels in the frame's order. */
export function bandGroups(readings: readonly Reading[]): BandGroup[] {
  const groups = new Map<string, BandGroup>();
  for (const r of readings) {
    const match = BAND_CHANNEL.exec(r.channel);
    if (match === null) continue;
    const band = match[2] ?? '';
    let group = groups.get(band);
    if (group === undefined) {
      group = { band, bars: [] };
      groups.set(band, group);
    }
    group.bars.push({ ...r, channel: match[1] ?? r.channel });
  }
  return [...groups.values()];
}

export interface SsvepScore {
  /** The label after `score.` (`8.57Hz`). */
  label: string;
  /** Its frequency, Hz (NaN when the label names none). */
  frequency: number;
  value: number;
}

export interface SsvepView {
  scores: SsvepScore[];
  /** Index in `scores` of the top frequency: the one `frequency.top` names, else the best score. */
  top: number;
  /** `frequency.detected`, Hz; undefined when nothing is detected (0) or the channel is absent. */
  detected: number | undefined;
}

/** Frequencies closer than this are the same target (labels round them to 0.01 Hz). */
const SAME_FREQUENCY_HZ = 0.006;

export function ssvepView(readings: readonly Reading[]): SsvepView {
  const scores = readings
    .filter((r) => r.channel.startsWith('score.'))
    .map((r) => {
      const label = r.channel.slice('score.'.length);
      return { label, frequency: Number.parseFloat(label), value: r.value };
    });
  const value = (name: string): number | undefined => readings.find((r) => r.channel === name)?.value;
  const topFrequency = value('frequency.top');
  let top = scores.findIndex(
    (s) => topFrequency !== undefined && Math.abs(s.frequency - topFrequency) < SAME_FREQUENCY_HZ,
  );
  if (top < 0) {
    scores.forEach((s, i) => {
      if (top < 0 || s.value > (scores[top]?.value ?? Number.NEGATIVE_INFINITY)) top = i;
    });
  }
  const detected = value('frequency.detected');
  return {
    scores,
    top,
    detected: detected !== undefined && detected > 0 ? detected : undefined,
  };
}

/** A value for display: two decimals from 1 up, three below, one from 100, none from 1000. */
export function formatValue(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const a = Math.abs(value);
  return value.toFixed(a >= 1000 ? 0 : a >= 100 ? 1 : a >= 1 ? 2 : 3);
}

/** The unit as written after a value: `1` (a ratio, a score) is written as nothing. */
export function unitSuffix(unit: string): string {
  return unit === '1' ? '' : ` ${unit}`;
}

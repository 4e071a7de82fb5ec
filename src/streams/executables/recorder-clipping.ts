/**
 * Clipping and samples of no value are never silent (docs/recording.md §Clipping, §No value). The
 * EDF/BDF writer clamps values beyond the segment's physical limits, writes NaN and ±Infinity as
 * the digital minimum, and says where (EdfWriter.takeClipRuns, takeNoValueRuns); this turns those
 * runs into the file's annotations, at most about one per second of recording for each kind:
 * - runs closer than {@link MERGE_GAP_SECONDS} to each other make one *span*; a span closes after
 *   that long without such values, when it has lasted {@link MAX_SPAN_SECONDS}, or at the
 *   segment's end;
 * - each closed span is one annotation at its first sample, lasting to its last one:
 *   `Clipped: 37 value(s) outside -3276.8..3276.7 uV`, `No value (NaN or infinite): 12 value(s) on Fp1 Cz`.
 * The recorder counts the values in its metrics and status info, and warns once per segment.
 */
import type { ClipRun, NoValueRun } from '../../formats/edf-writer.js';

/** Runs closer than this (s) are one annotated span. */
export const MERGE_GAP_SECONDS = 1;
/** A span is annotated once it has lasted this long (s), so a long run is marked as it goes. */
export const MAX_SPAN_SECONDS = 10;

export interface SpanAnnotation {
  onsetSeconds: number;
  durationSeconds: number;
  text: string;
}

/** A run of samples; `channels` (indices, ascending) when the kind names them. */
type SampleRun = ClipRun & { channels?: number[] };

/** The text of a clipping span: the limits as the annotations say them (`-3276.8..3276.7`, `±100`). */
export function clipText(limits: string): (span: SampleRun) => string {
  return (span) => `Clipped: ${span.values} value(s) outside ${limits} uV`;
}

/** The text of a span of no value, naming its channels by their labels in the file. */
export function noValueText(labels: readonly string[]): (span: SampleRun) => string {
  return (span) =>
    `No value (NaN or infinite): ${span.values} value(s) on ${(span.channels ?? []).map((c) => labels[c] ?? `#${c + 1}`).join(' ')}`;
}

export class SampleSpans {
  private span: SampleRun | undefined;
  private readonly gap: number;
  private readonly longest: number;

  constructor(
    private readonly sampleRate: number,
    private readonly describe: (span: SampleRun) => string,
  ) {
    this.gap = Math.max(1, Math.round(MERGE_GAP_SECONDS * sampleRate));
    this.longest = Math.max(1, Math.round(MAX_SPAN_SECONDS * sampleRate));
  }

  /**
   * Takes the runs of one write (`samples`: samples written so far); answers the annotations of
   * the spans that closed.
   */
  add(runs: readonly (ClipRun | NoValueRun)[], samples: number): SpanAnnotation[] {
    const out: SpanAnnotation[] = [];
    for (const run of runs) {
      const span = this.span;
      if (span !== undefined && run.first - span.last <= this.gap && run.last - span.first < this.longest) {
        span.last = run.last;
        span.values += run.values;
        if (span.channels !== undefined && 'channels' in run) {
          span.channels = [...new Set([...span.channels, ...run.channels])].sort((a, b) => a - b);
        }
        continue;
      }
      if (span !== undefined) out.push(this.annotation(span));
      this.span = { ...run, ...('channels' in run ? { channels: [...run.channels] } : {}) };
    }
    const span = this.span;
    if (
      span !== undefined &&
      (samples - 1 - span.last > this.gap || span.last - span.first + 1 >= this.longest)
    ) {
      out.push(this.annotation(span));
      this.span = undefined;
    }
    return out;
  }

  /** True while a span waits to be closed. */
  get open(): boolean {
    return this.span !== undefined;
  }

  /** The segment ends: the open span, if any. */
  finish(): SpanAnnotation[] {
    const span = this.span;
    this.span = undefined;
    return span === undefined ? [] : [this.annotation(span)];
  }

  private annotation(span: SampleRun): SpanAnnotation {
    return {
      onsetSeconds: span.first / this.sampleRate,
      durationSeconds: (span.last - span.first + 1) / this.sampleRate,
      text: this.describe(span),
    };
  }
}

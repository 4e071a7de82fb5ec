/**
 * Clipping is never silent (docs/recording.md §Clipping). The EDF/BDF writer clamps values beyond
 * the segment's physical limits and says where (EdfWriter.takeClipRuns); this turns those runs into
 * the file's annotations, at most about one per second of recording:
 * - runs closer than {@link MERGE_GAP_SECONDS} to each other make one *span*; a span closes after
 *   that long without clipping, when it has lasted {@link MAX_SPAN_SECONDS}, or at the segment's
 *   end;
 * - each closed span is one annotation at its first clipped sample, lasting to its last one:
 *   `Clipped: 37 value(s) outside -3276.8..3276.7 uV`.
 * The recorder counts the values in its metrics and status info, and warns once per segment.
 */
import type { ClipRun } from '../formats/edf-writer.js';

/** Runs closer than this (s) are one annotated span. */
export const MERGE_GAP_SECONDS = 1;
/** A span is annotated once it has lasted this long (s), so a long clipping is marked as it goes. */
export const MAX_SPAN_SECONDS = 10;

export interface ClipAnnotation {
  onsetSeconds: number;
  durationSeconds: number;
  text: string;
}

export class ClipSpans {
  private span: ClipRun | undefined;
  private readonly gap: number;
  private readonly longest: number;

  constructor(
    private readonly sampleRate: number,
    /** `-3276.8..3276.7`, as the annotations say it. */
    private readonly limits: string,
  ) {
    this.gap = Math.max(1, Math.round(MERGE_GAP_SECONDS * sampleRate));
    this.longest = Math.max(1, Math.round(MAX_SPAN_SECONDS * sampleRate));
  }

  /**
   * Takes the runs of one write (`samples`: samples written so far); answers the annotations of
   * the spans that closed.
   */
  add(runs: readonly ClipRun[], samples: number): ClipAnnotation[] {
    const out: ClipAnnotation[] = [];
    for (const run of runs) {
      const span = this.span;
      if (span !== undefined && run.first - span.last <= this.gap && run.last - span.first < this.longest) {
        span.last = run.last;
        span.values += run.values;
        continue;
      }
      if (span !== undefined) out.push(this.annotation(span));
      this.span = { ...run };
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
  finish(): ClipAnnotation[] {
    const span = this.span;
    this.span = undefined;
    return span === undefined ? [] : [this.annotation(span)];
  }

  private annotation(span: ClipRun): ClipAnnotation {
    return {
      onsetSeconds: span.first / this.sampleRate,
      durationSeconds: (span.last - span.first + 1) / this.sampleRate,
      text: `Clipped: ${span.values} value(s) outside ${this.limits} uV`,
    };
  }
}

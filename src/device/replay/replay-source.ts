/**
 * The replay device's EEG: a recording's samples as an `EegSignalSource` for the acquisition
 * engine (../acquisition.ts), which paces, frames and delivers them exactly as it does the
 * simulated EEG.
 *
 * - At the file's own rate (`nativeRate`, the acquisition's default) the samples pass unaltered.
 * - At another rate (a standard one set through PUT /system/sensors/eeg) they go through the
 *   project's streaming rational resampler (dsp/resample.ts: polyphase Kaiser-windowed sinc, flat
 *   to 0.8 × the lower Nyquist). Its group delay is absorbed at every `begin` by reading that much
 *   ahead and dropping the filter's first outputs, so output sample n is the file at n / rate
 *   after the position where the run began.
 * - The values are recorded ones (`recorded`): the acquisition does not quantise them, and the
 *   gain does not change them.
 * - The position in the file belongs to the device: it advances only while samples are read and
 *   continues across stops and configuration changes; a new device starts at the first sample.
 * - `fill` answers true for the block holding the first sample of a new pass (the loop) or of a
 *   record after an EDF+D gap; when resampling, the block holding the output sample nearest after
 *   that point (the filter smooths across the jump).
 * - The file's markers (its annotations) passed by a `fill` wait in `takeMarkers`, each with its
 *   row in that fill (when resampling, the output row nearest after its sample), for the device to
 *   announce at the time of that row's sample.
 */
import type { UnplayedChannel } from '../channels.js';
import { Resampler } from '../../dsp/resample.js';
import { DeviceArgumentError } from '../errors.js';
import type { Electrode } from '../../core/electrodes.js';
import type { EegSignalSource } from '../signal-source.js';
import type { ReplayMarker, ReplayRecording } from './recording.js';
import { SampleCursor } from './sample-cursor.js';
import { errorMessage } from '../../core/error-message.js';

export class ReplaySource implements EegSignalSource {
  readonly available: readonly Electrode[];
  readonly unplayed: readonly UnplayedChannel[];
  readonly nativeRate: number;
  readonly recorded = true;
  private readonly cursor: SampleCursor;
  /** Columns of the run: indices into `recording.channels`. */
  private columns: number[] = [];
  private resampler: Resampler | undefined;
  /** Resampled rows not delivered yet (row-major, `columns.length` wide). */
  private pending = new Float32Array(0);
  private pendingRows = 0;
  /** Resampler outputs still to drop (its group delay), input rows read and rows delivered in the run. */
  private toDiscard = 0;
  private consumed = 0;
  private delivered = 0;
  /** Output rows of the run at which a jump (loop or gap) takes effect. */
  private jumps: number[] = [];
  /** Markers read ahead by the resampler, at their output row of the run. */
  private markersAhead: { row: number; marker: ReplayMarker }[] = [];
  /** Markers of the last `fill`, with their row in it. */
  private filled: { row: number; marker: ReplayMarker }[] = [];

  constructor(private readonly recording: ReplayRecording) {
    this.available = Object.freeze(recording.channels.map((c) => c.electrode));
    this.unplayed = Object.freeze(
      recording.info.dropped.map(({ label, reason }) => ({ name: label, reason })),
    );
    this.nativeRate = recording.sampleRate;
    this.cursor = new SampleCursor(recording);
  }

  begin(sampleRate: number, channels: readonly Electrode[]): void {
    this.columns = channels.map((electrode) => {
      const column = this.recording.channels.findIndex((c) => c.electrode === electrode);
      if (column < 0) throw new RangeError(`${electrode} is not in ${this.recording.info.fileName}`);
      return column;
    });
    this.pending = new Float32Array(0);
    this.pendingRows = 0;
    this.consumed = 0;
    this.delivered = 0;
    this.jumps = [];
    this.markersAhead = [];
    if (sampleRate === this.nativeRate || channels.length === 0) {
      this.resampler = undefined;
      this.toDiscard = 0;
    } else {
      this.resampler = this.resamplerTo(sampleRate, channels.length);
      this.toDiscard = this.resampler.delaySamples;
    }
  }

  fill(out: Float32Array, count: number): boolean {
    const resampler = this.resampler;
    if (resampler === undefined) {
      // A run without columns still moves through the file, so time keeps passing in it.
      const { jumps, markers } = this.cursor.read(out, count, this.columns);
      this.filled.push(...markers);
      return jumps.length > 0;
    }
    const width = this.columns.length;
    while (this.pendingRows < count) this.resampleMore(resampler, count - this.pendingRows);
    out.set(this.pending.subarray(0, count * width));
    this.pending = this.pending.slice(count * width);
    this.pendingRows -= count;
    const first = this.delivered;
    this.delivered += count;
    const jumped = this.jumps.some((n) => n >= first && n < this.delivered);
    this.jumps = this.jumps.filter((n) => n >= this.delivered);
    for (const m of this.markersAhead)
      if (m.row < this.delivered) this.filled.push({ row: Math.max(0, m.row - first), marker: m.marker });
    this.markersAhead = this.markersAhead.filter((m) => m.row >= this.delivered);
    return jumped;
  }

  /** The markers the fills since the last call passed, each with its row in the latest fill. */
  takeMarkers(): { row: number; marker: ReplayMarker }[] {
    const taken = this.filled;
    this.filled = [];
    return taken;
  }

  /**
   * A resampler from the file's rate to `rate`. A fractional file rate (100 samples per 0.3-s
   * record) is exact as samples per record over the record's duration: when the rates' own ratio
   * needs factors too large, the same ratio is tried as samplesPerRecord : rate × duration.
   */
  private resamplerTo(rate: number, channels: number): Resampler {
    try {
      return new Resampler(this.nativeRate, rate, channels);
    } catch (error) {
      const perRecord = this.recording.samplesPerRecord;
      const duration = this.recording.header.recordDuration;
      try {
        return new Resampler(perRecord, rate * duration, channels);
      } catch {
        throw new DeviceArgumentError(
          `The recording's rate (${this.nativeRate} Hz) cannot be resampled to ${rate} Hz: ${errorMessage(error)}. Use the file's own rate.`,
          { field: 'samplingFrequency', value: rate },
        );
      }
    }
  }

  /** Closes the file. */
  close(): void {
    this.cursor.close();
  }

  /** Reads enough input for `rows` more output rows (after the delay still to drop) and resamples it. */
  private resampleMore(resampler: Resampler, rows: number): void {
    const width = this.columns.length;
    const { up, down } = resampler;
    const inputRows = Math.max(1, Math.ceil(((rows + this.toDiscard) * down) / up));
    const input = new Float32Array(inputRows * width);
    // Output n (after the dropped delay) is the input at n·M/L: the first at or after a row.
    const outputRow = (row: number) => Math.floor(((this.consumed + row) * up + down - 1) / down);
    const { jumps, markers } = this.cursor.read(input, inputRows, this.columns);
    for (const row of jumps) this.jumps.push(outputRow(row));
    for (const { row, marker } of markers) this.markersAhead.push({ row: outputRow(row), marker });
    this.consumed += inputRows;
    let output = resampler.process(input);
    if (this.toDiscard > 0) {
      const drop = Math.min(this.toDiscard, output.length / width);
      output = output.subarray(drop * width);
      this.toDiscard -= drop;
    }
    const merged = new Float32Array(this.pending.length + output.length);
    merged.set(this.pending);
    merged.set(output, this.pending.length);
    this.pending = merged;
    this.pendingRows += output.length / width;
  }
}

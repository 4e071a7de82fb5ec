/**
 * `headsetd eeg watch`: the per-channel RMS of the headset's EEG over the last second (or
 * `--window`), from the API's live EEG socket (WebSocket GET /system/sensors/eeg/stream), redrawn
 * in place on a terminal. The mean of the window is removed first, so the figure is the signal's
 * spread and not the electrode's DC offset.
 */
import type { Command } from '../command.js';
import { stringOption } from '../command.js';
import { UsageError } from '../failures.js';
import { LiveView, progressBar } from '../live.js';
import type { Output } from '../output.js';
import { openSocket } from '../socket.js';
import { table, fixed } from '../table.js';

interface Frame {
  timestamp: number;
  sampleRate: number;
  channels: string[];
  data: number[][];
  discontinuity?: boolean;
}

/** The frames of the last `seconds`, per channel layout: a new rate or channel list starts over. */
export class RmsWindow {
  private frames: Frame[] = [];
  private rows = 0;

  constructor(private readonly seconds: number) {}

  add(frame: Frame): void {
    const first = this.frames[0];
    if (
      first !== undefined &&
      (first.sampleRate !== frame.sampleRate || first.channels.join() !== frame.channels.join())
    ) {
      this.frames = [];
      this.rows = 0;
    }
    this.frames.push(frame);
    this.rows += frame.data.length;
    const keep = Math.max(1, Math.round(this.seconds * frame.sampleRate));
    while (this.frames.length > 1 && this.rows - (this.frames[0]?.data.length ?? 0) >= keep) {
      this.rows -= this.frames.shift()?.data.length ?? 0;
    }
  }

  /** Per channel: the RMS about the window's mean, in the samples' unit (µV). */
  rms(): { sampleRate: number; samples: number; values: Record<string, number> } | undefined {
    const first = this.frames[0];
    if (first === undefined || this.rows === 0) return undefined;
    const values: Record<string, number> = {};
    first.channels.forEach((channel, c) => {
      let sum = 0;
      for (const frame of this.frames) for (const row of frame.data) sum += row[c] ?? 0;
      const mean = sum / this.rows;
      let squares = 0;
      for (const frame of this.frames)
        for (const row of frame.data) {
          const d = (row[c] ?? 0) - mean;
          squares += d * d;
        }
      values[channel] = Math.sqrt(squares / this.rows);
    });
    return { sampleRate: first.sampleRate, samples: this.rows, values };
  }
}

function positiveNumber(values: Record<string, unknown>, name: string, fallback: number): number {
  const text = stringOption(values as never, name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0)
    throw new UsageError(`--${name}: ${JSON.stringify(text)} is not a positive number.`);
  return value;
}

function render(out: Output, rms: NonNullable<ReturnType<RmsWindow['rms']>>, seconds: number): string[] {
  const entries = Object.entries(rms.values);
  const top = Math.max(1e-9, ...entries.map(([, v]) => v));
  return [
    out.style(
      'bold',
      `EEG ${String(rms.sampleRate)} Hz, ${String(entries.length)} channels, RMS over ${String(seconds)} s (µV)`,
    ),
    ...table(
      entries,
      [
        { header: 'CHANNEL', value: ([name]) => name },
        { header: 'RMS µV', value: ([, v]) => fixed(v, 2), align: 'right' },
        { header: '', value: ([, v]) => progressBar(v / top, 30) },
      ],
      (t) => out.style('bold', t),
    ),
  ];
}

export const watchCommand: Command = {
  name: 'eeg watch',
  args: '[--window S] [--interval MS] [--count N] [--start]',
  summary: "A live table of each channel's RMS (µV, mean removed), from the live EEG socket.",
  help: `Options:
  --window S       seconds of signal per figure (default 1)
  --interval MS    time between updates (default 500)
  --count N        stop after N updates (default: until Ctrl-C)
  --start          start acquisition for the watch, and release it at the end
On a terminal the table is redrawn in place; otherwise each update is printed after the other.
With --json: one line per update (NDJSON): {timestamp, sampleRate, samples, windowSeconds, rms: {CH: µV}}.`,
  options: {
    window: { type: 'string' },
    interval: { type: 'string' },
    count: { type: 'string' },
    start: { type: 'boolean' },
  },
  async run({ client, out, values, signal }) {
    const seconds = positiveNumber(values, 'window', 1);
    const interval = positiveNumber(values, 'interval', 500);
    const count =
      values.count === undefined ? Number.POSITIVE_INFINITY : Math.floor(positiveNumber(values, 'count', 1));
    const socket = await openSocket(client, '/system/sensors/eeg/stream', signal);
    let started = false;
    try {
      if (values.start === true) {
        await client.post('/system/sensors/eeg/stream');
        started = true;
      } else {
        const { status } = await client.get<{ status: { eeg: { streaming: boolean } } }>('/system/status');
        if (!status.eeg.streaming)
          out.note(
            "acquisition is not running: waiting for it (start it with 'headsetd eeg start', or use --start)",
          );
      }
      const window = new RmsWindow(seconds);
      const view = new LiveView(out);
      let updates = 0;
      // The first figure after one interval, not on the first (short) frame.
      let last = Date.now();
      try {
        for await (const message of socket.messages()) {
          const frame = message as Frame;
          if (!Array.isArray(frame.data)) continue;
          window.add(frame);
          const now = Date.now();
          if (now - last < interval) continue;
          const rms = window.rms();
          if (rms === undefined) continue;
          last = now;
          if (out.json)
            out.record({
              timestamp: frame.timestamp,
              sampleRate: rms.sampleRate,
              samples: rms.samples,
              windowSeconds: seconds,
              rms: rms.values,
            });
          else view.draw(render(out, rms, seconds));
          if (++updates >= count) break;
        }
      } catch (error) {
        if (!signal.aborted) throw error;
      }
      if (updates < count && !signal.aborted) out.note('the service closed the EEG socket');
      return 0;
    } finally {
      socket.close();
      if (started) await client.request('DELETE', '/system/sensors/eeg/stream').catch(() => undefined);
    }
  },
};

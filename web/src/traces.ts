/**
 * The EEG of the Signals panel, kept out of the component tree so that frames never cause a
 * render: frames of /system/sensors/eeg/stream go through the display filters into one ring buffer
 * per channel, which the panel draws in an animation frame after new frames came (plots.ts).
 */
import { socketUrl } from './api';
import { Cascade, design, type FilterSettings } from './dsp';
import type { FrameJson } from './api-types';

/** One frame as a websocket sends it in JSON (docs/api.md §Frames). */
export type Frame = FrameJson;

/** Seconds of signal kept per channel (the longest time window offered). */
const KEPT_SECONDS = 30;

export class TraceBuffer {
  channels: string[] = [];
  sampleRate = 0;
  /** Samples written since the last reset (the write position is `written % capacity`). */
  written = 0;
  /** Time of the newest sample written, ms since the Unix epoch (the frames' own time stamps). */
  newestMs = 0;
  frames = 0;
  private rings: Float32Array[] = [];
  private filters: Cascade[] = [];
  private filter: FilterSettings = { highpass: 1, lowpass: 40, notch: 50 };

  setFilter(filter: FilterSettings): void {
    this.filter = filter;
    this.redesign();
  }

  private redesign(): void {
    const sections = design(this.filter, this.sampleRate || 250);
    this.filters = this.channels.map(() => new Cascade(sections));
  }

  get capacity(): number {
    return this.rings[0]?.length ?? 0;
  }

  push(frame: Frame): void {
    const sameShape =
      frame.sampleRate === this.sampleRate &&
      frame.channels.length === this.channels.length &&
      frame.channels.every((c, i) => c === this.channels[i]);
    if (!sameShape) {
      this.channels = [...frame.channels];
      this.sampleRate = frame.sampleRate;
      this.rings = this.channels.map(() => new Float32Array(Math.ceil(frame.sampleRate * KEPT_SECONDS)));
      this.written = 0;
      this.redesign();
    } else if (frame.discontinuity === true) {
      this.redesign();
    }
    const capacity = this.capacity;
    for (const row of frame.data) {
      const at = this.written % capacity;
      for (let c = 0; c < this.channels.length; c++) {
        // A sample of no value ("NaN", "Infinity", "-Infinity") is drawn as 0: it would poison the filter.
        const value = row[c];
        (this.rings[c] as Float32Array)[at] = (this.filters[c] as Cascade).step(
          typeof value === 'number' ? value : 0,
        );
      }
      this.written++;
    }
    if (frame.data.length > 0)
      this.newestMs = frame.timestamp + ((frame.data.length - 1) * 1000) / frame.sampleRate;
    this.frames++;
  }

  /** The last `n` samples of a channel, oldest first (fewer while fewer were written). */
  last(channel: number, n: number): Float32Array {
    const ring = this.rings[channel];
    if (ring === undefined) return new Float32Array(0);
    const count = Math.min(n, this.written, ring.length);
    const out = new Float32Array(count);
    const start = this.written - count;
    for (let i = 0; i < count; i++) out[i] = ring[(start + i) % ring.length] as number;
    return out;
  }
}

/**
 * Subscribes a buffer to the device's EEG socket, calling `onFrame` after each frame it took;
 * answers a function that closes it.
 */
export function connectEeg(
  buffer: TraceBuffer,
  onState: (state: string) => void,
  onFrame: () => void,
): () => void {
  let closed = false;
  let ws: WebSocket | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const open = (): void => {
    ws = new WebSocket(socketUrl('/system/sensors/eeg/stream'));
    ws.onopen = () => {
      onState('connected');
    };
    ws.onmessage = (message) => {
      if (typeof message.data !== 'string') return;
      buffer.push(JSON.parse(message.data) as Frame);
      onFrame();
    };
    ws.onclose = () => {
      onState('disconnected');
      if (!closed) retry = setTimeout(open, 1000);
    };
  };
  open();
  return () => {
    closed = true;
    if (retry !== undefined) clearTimeout(retry);
    ws?.close();
  };
}

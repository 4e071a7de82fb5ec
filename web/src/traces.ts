/**
 * The EEG traces of the Signals panel, kept out of the component tree so that frames never cause a
 * render: frames of /system/sensors/eeg/stream go through the display filters into one ring buffer
 * per channel, and a requestAnimationFrame loop draws the visible window on a canvas, one min/max
 * pair per pixel column (at 500 Hz and a 10 s window that is 5000 samples folded into ~1000
 * columns per channel), so a frame's cost follows the canvas's width, not the sample rate.
 */
import { socketUrl } from './api';
import { Cascade, design, type FilterSettings, powerSpectrum } from './dsp';

export interface Frame {
  seq: number;
  timestamp: number;
  sampleRate: number;
  channels: string[];
  data: number[][];
  discontinuity?: boolean;
}

/** Seconds of signal kept per channel (the longest time window offered). */
const KEPT_SECONDS = 30;

export class TraceBuffer {
  channels: string[] = [];
  sampleRate = 0;
  /** Samples written since the last reset (the write position is `written % capacity`). */
  written = 0;
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
        (this.rings[c] as Float32Array)[at] = (this.filters[c] as Cascade).step(row[c] ?? 0);
      }
      this.written++;
    }
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

/** Subscribes a buffer to the device's EEG socket; answers a function that closes it. */
export function connectEeg(buffer: TraceBuffer, onState: (state: string) => void): () => void {
  let closed = false;
  let ws: WebSocket | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const open = (): void => {
    ws = new WebSocket(socketUrl('/system/sensors/eeg/stream'));
    ws.onopen = () => {
      onState('connected');
    };
    ws.onmessage = (message) => {
      if (typeof message.data === 'string') buffer.push(JSON.parse(message.data) as Frame);
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

export interface DrawOptions {
  /** Indices into buffer.channels of the channels shown, top to bottom. */
  shown: number[];
  /** Seconds across the canvas. */
  windowSeconds: number;
  /** µV from a trace's centre line to the edge of its lane. */
  microvoltsPerLane: number;
  /** 0..1 per channel name, for the lane's quality mark; absent when unknown. */
  quality: Record<string, number>;
}

const LABEL_WIDTH = 56;

/**
 * The canvas sized to its box at the display's pixel ratio (so lines stay sharp), cleared to
 * white, with its 2D context scaled to CSS pixels; undefined when the browser gives no context.
 */
function clearedSurface(
  canvas: HTMLCanvasElement,
): { g: CanvasRenderingContext2D; w: number; h: number } | undefined {
  const ratio = window.devicePixelRatio || 1;
  const width = Math.max(1, Math.floor(canvas.clientWidth * ratio));
  const height = Math.max(1, Math.floor(canvas.clientHeight * ratio));
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
  }
  const g = canvas.getContext('2d');
  if (g === null) return undefined;
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  const w = width / ratio;
  const h = height / ratio;
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, w, h);
  return { g, w, h };
}

/** Draws the traces; the newest sample at the right edge. */
export function drawTraces(canvas: HTMLCanvasElement, buffer: TraceBuffer, options: DrawOptions): void {
  const surface = clearedSurface(canvas);
  if (surface === undefined) return;
  const { g, w, h } = surface;
  const lanes = options.shown.length;
  if (lanes === 0 || buffer.sampleRate === 0) {
    g.fillStyle = '#666666';
    g.font = '14px sans-serif';
    g.fillText(
      buffer.sampleRate === 0 ? 'Waiting for EEG: start acquisition.' : 'No channel selected.',
      16,
      28,
    );
    return;
  }
  const laneHeight = h / lanes;
  const plotWidth = w - LABEL_WIDTH;
  const n = Math.floor(options.windowSeconds * buffer.sampleRate);
  const columns = Math.max(1, Math.floor(plotWidth));
  const perColumn = n / columns;
  // Grid: one line a second, scrolling with the signal.
  g.strokeStyle = '#eeeeee';
  g.lineWidth = 1;
  const newestTime = buffer.written / buffer.sampleRate;
  for (let t = Math.floor(newestTime); t > newestTime - options.windowSeconds; t--) {
    const x = LABEL_WIDTH + plotWidth - ((newestTime - t) / options.windowSeconds) * plotWidth;
    g.beginPath();
    g.moveTo(x, 0);
    g.lineTo(x, h);
    g.stroke();
  }
  g.font = '12px sans-serif';
  options.shown.forEach((channel, lane) => {
    const name = buffer.channels[channel] ?? '';
    const mid = laneHeight * (lane + 0.5);
    // Quality events key channels in upper case (FP1); frames name them in the 10-20 form (Fp1).
    const quality = options.quality[name.toUpperCase()];
    g.fillStyle =
      quality === undefined ? '#999999' : quality > 0.7 ? '#2E9E44' : quality > 0.4 ? '#F2C80F' : '#D62728';
    g.fillRect(4, mid - 5, 8, 10);
    g.fillStyle = '#222222';
    g.fillText(name, 16, mid + 4);
    const samples = buffer.last(channel, n);
    const offset = n - samples.length;
    const scale = laneHeight / 2 / options.microvoltsPerLane;
    g.strokeStyle = '#1F4E8C';
    // Each lane is clipped to itself: a trace louder than the scale leaves its lane, not its neighbours'.
    g.save();
    g.beginPath();
    g.rect(LABEL_WIDTH, mid - laneHeight / 2, plotWidth, laneHeight);
    g.clip();
    g.beginPath();
    let started = false;
    for (let col = 0; col < columns; col++) {
      const from = Math.floor(col * perColumn) - offset;
      const to = Math.floor((col + 1) * perColumn) - offset;
      if (to <= 0 || from >= samples.length) continue;
      let lo = Infinity;
      let hi = -Infinity;
      for (let i = Math.max(0, from); i < Math.min(samples.length, Math.max(to, from + 1)); i++) {
        const v = samples[i] as number;
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
      // One continuous path through each column's extremes: at any zoom the trace stays one line.
      const x = LABEL_WIDTH + col;
      if (started) g.lineTo(x, mid - hi * scale);
      else g.moveTo(x, mid - hi * scale);
      started = true;
      g.lineTo(x, mid - lo * scale);
    }
    g.stroke();
    g.restore();
  });
  g.fillStyle = '#444444';
  g.fillText(
    `±${options.microvoltsPerLane} µV per lane · ${options.windowSeconds} s`,
    LABEL_WIDTH + 4,
    h - 6,
  );
}

/** Power spectrum of a channel's last ~2 s on a log scale, with the alpha band (8–12 Hz) marked. */
export function drawSpectrum(canvas: HTMLCanvasElement, buffer: TraceBuffer, channel: number): void {
  const surface = clearedSurface(canvas);
  if (surface === undefined) return;
  const { g, w, h } = surface;
  const fs = buffer.sampleRate;
  let n = 1;
  while (n * 2 <= Math.min(buffer.written, fs * 2)) n *= 2;
  const maxHz = Math.min(60, fs / 2);
  const left = 44;
  const bottom = h - 20;
  const x = (hz: number): number => left + (hz / maxHz) * (w - left - 8);
  g.fillStyle = 'rgba(46, 158, 68, 0.18)';
  g.fillRect(x(8), 0, x(12) - x(8), bottom);
  g.fillStyle = '#2E7D32';
  g.font = '12px sans-serif';
  g.fillText('alpha 8–12 Hz', x(8) + 2, 14);
  g.strokeStyle = '#999999';
  g.beginPath();
  g.moveTo(left, bottom);
  g.lineTo(w - 8, bottom);
  g.stroke();
  g.fillStyle = '#444444';
  for (let hz = 0; hz <= maxHz; hz += 10) g.fillText(`${hz}`, x(hz) - 6, h - 4);
  if (n < 64 || fs === 0) {
    g.fillText('Waiting for 2 s of EEG.', left + 8, bottom / 2);
    return;
  }
  const power = powerSpectrum(buffer.last(channel, n), fs);
  const binHz = fs / n;
  const dbs: number[] = [];
  for (let k = 1; k * binHz <= maxHz && k < power.length; k++)
    dbs.push(10 * Math.log10((power[k] as number) + 1e-12));
  const top = Math.max(...dbs);
  const floor = top - 60;
  g.fillText(`${top.toFixed(0)} dB`, 2, 12);
  g.fillText(floor.toFixed(0), 2, bottom);
  g.strokeStyle = '#1F4E8C';
  g.beginPath();
  dbs.forEach((db, i) => {
    const px = x((i + 1) * binHz);
    const py = bottom - ((Math.max(db, floor) - floor) / (top - floor || 1)) * (bottom - 4);
    if (i === 0) g.moveTo(px, py);
    else g.lineTo(px, py);
  });
  g.stroke();
}

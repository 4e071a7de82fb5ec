/**
 * The Signals panel's canvases: the EEG traces, one lane per channel over a time axis in the
 * frames' own time (ticks at whole seconds of the clock), and a channel's power spectrum on a dB
 * scale referred to 1 µV²/Hz. Each draw is one min/max pair per pixel column (at 500 Hz and a 10 s
 * window that is 5000 samples folded into ~1000 columns per channel), so a frame's cost follows
 * the canvas's width, not the sample rate. What the axes say is also written on the canvas
 * element (`aria-label`, `data-time-ticks`, `data-db-ticks`), for screen readers and tests.
 */
import { powerSpectrum } from './dsp';
import type { TraceBuffer } from './traces';

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

/** The reference of the spectrum's decibels: its values are a density in µV²/Hz. */
export const SPECTRUM_UNIT = 'dB re 1 µV²/Hz';

const LABEL_WIDTH = 56;
/** Below the lanes: the tick labels, then the caption. */
const AXIS_HEIGHT = 36;
/** Seconds between labelled ticks, the smallest that leaves room for a label. */
const TICK_STEPS = [1, 2, 5, 10, 15, 30];
const MIN_TICK_SPACING_PX = 80;

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

/** Sets an attribute of the canvas only when it changes (draws run at the display's frame rate). */
function describe(canvas: HTMLCanvasElement, attribute: string, value: string): void {
  if (canvas.getAttribute(attribute) !== value) canvas.setAttribute(attribute, value);
}

/** Local time of day, hh:mm:ss. */
export function clockTime(ms: number): string {
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/** Draws the time axis under the lanes; answers the labels drawn, oldest first. */
function drawTimeAxis(
  g: CanvasRenderingContext2D,
  geometry: { w: number; top: number; plotWidth: number },
  newestMs: number,
  windowSeconds: number,
): string[] {
  const { w, top, plotWidth } = geometry;
  const windowMs = windowSeconds * 1000;
  const xOf = (ms: number): number => LABEL_WIDTH + plotWidth - ((newestMs - ms) / windowMs) * plotWidth;
  const step = TICK_STEPS.find((s) => (s / windowSeconds) * plotWidth >= MIN_TICK_SPACING_PX) ?? 60;
  g.strokeStyle = '#999999';
  g.lineWidth = 1;
  g.beginPath();
  g.moveTo(LABEL_WIDTH, top + 0.5);
  g.lineTo(w, top + 0.5);
  g.stroke();
  g.fillStyle = '#444444';
  g.font = '12px sans-serif';
  g.textAlign = 'center';
  const labels: string[] = [];
  const stepMs = step * 1000;
  for (let t = Math.floor(newestMs / stepMs) * stepMs; t > newestMs - windowMs; t -= stepMs) {
    const x = Math.round(xOf(t)) + 0.5;
    g.beginPath();
    g.moveTo(x, top);
    g.lineTo(x, top + 5);
    g.stroke();
    const label = clockTime(t);
    const half = g.measureText(label).width / 2;
    if (x - half < LABEL_WIDTH || x + half > w) continue;
    g.fillText(label, x, top + 17);
    labels.unshift(label);
  }
  g.textAlign = 'start';
  return labels;
}

/** Draws the traces; the newest sample at the right edge, at its time on the axis below. */
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
    describe(canvas, 'data-time-ticks', '');
    describe(canvas, 'aria-label', 'EEG traces: no signal yet');
    return;
  }
  const lanesHeight = h - AXIS_HEIGHT;
  const laneHeight = lanesHeight / lanes;
  const plotWidth = w - LABEL_WIDTH;
  const n = Math.floor(options.windowSeconds * buffer.sampleRate);
  const columns = Math.max(1, Math.floor(plotWidth));
  const perColumn = n / columns;
  // Grid: one line a second of the clock, scrolling with the signal.
  const newestMs = buffer.newestMs;
  const windowMs = options.windowSeconds * 1000;
  g.strokeStyle = '#eeeeee';
  g.lineWidth = 1;
  for (let t = Math.floor(newestMs / 1000) * 1000; t > newestMs - windowMs; t -= 1000) {
    const x = Math.round(LABEL_WIDTH + plotWidth - ((newestMs - t) / windowMs) * plotWidth) + 0.5;
    g.beginPath();
    g.moveTo(x, 0);
    g.lineTo(x, lanesHeight);
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
  const ticks = drawTimeAxis(g, { w, top: lanesHeight, plotWidth }, newestMs, options.windowSeconds);
  g.fillStyle = '#444444';
  g.fillText(
    `time of day (hh:mm:ss) · ${options.windowSeconds} s window · ±${options.microvoltsPerLane} µV per lane`,
    LABEL_WIDTH + 4,
    h - 4,
  );
  describe(canvas, 'data-time-ticks', ticks.join(' '));
  describe(
    canvas,
    'aria-label',
    `EEG traces of ${lanes} channels, ±${options.microvoltsPerLane} µV per lane, the last ${options.windowSeconds} s up to ${clockTime(newestMs)}`,
  );
}

/**
 * Power spectral density of a channel's last ~2 s (Hann window) in dB re 1 µV²/Hz, 60 dB from
 * the top ten above its peak, with the alpha band (8–12 Hz) marked.
 */
export function drawSpectrum(canvas: HTMLCanvasElement, buffer: TraceBuffer, channel: number): void {
  const surface = clearedSurface(canvas);
  if (surface === undefined) return;
  const { g, w, h } = surface;
  const fs = buffer.sampleRate;
  let n = 1;
  while (n * 2 <= Math.min(buffer.written, fs * 2)) n *= 2;
  const maxHz = Math.min(60, fs / 2 || 60);
  const left = 48;
  const top = 22;
  const bottom = h - 20;
  const x = (hz: number): number => left + (hz / maxHz) * (w - left - 8);
  g.fillStyle = 'rgba(46, 158, 68, 0.18)';
  g.fillRect(x(8), top, x(12) - x(8), bottom - top);
  g.font = '12px sans-serif';
  g.fillStyle = '#2E7D32';
  g.fillText('alpha 8–12 Hz', x(8) + 2, top + 12);
  g.fillStyle = '#222222';
  g.fillText(`power, ${SPECTRUM_UNIT}`, 4, 14);
  g.strokeStyle = '#999999';
  g.beginPath();
  g.moveTo(left, bottom + 0.5);
  g.lineTo(w - 8, bottom + 0.5);
  g.moveTo(left + 0.5, top);
  g.lineTo(left + 0.5, bottom);
  g.stroke();
  g.fillStyle = '#444444';
  g.textAlign = 'center';
  for (let hz = 0; hz <= maxHz; hz += 10) {
    const label = hz + 10 > maxHz ? `${hz} Hz` : `${hz}`;
    // The last label ends at the axis's end rather than past the canvas's edge.
    const room = w - x(hz);
    g.textAlign = g.measureText(label).width / 2 > room ? 'right' : 'center';
    g.fillText(label, g.textAlign === 'right' ? w - 2 : x(hz), h - 4);
  }
  g.textAlign = 'start';
  const channelName = buffer.channels[channel] ?? '';
  if (n < 64 || fs === 0) {
    g.fillText('Waiting for 2 s of EEG.', left + 8, (top + bottom) / 2);
    describe(canvas, 'data-db-ticks', '');
    describe(canvas, 'aria-label', `Power spectrum in ${SPECTRUM_UNIT}: waiting for 2 s of EEG`);
    return;
  }
  const power = powerSpectrum(buffer.last(channel, n), fs);
  const binHz = fs / n;
  const dbs: number[] = [];
  for (let k = 1; k * binHz <= maxHz && k < power.length; k++)
    dbs.push(10 * Math.log10((power[k] as number) + 1e-12));
  // Whole tens: the scale moves in steps a reader can follow, not with every block's peak.
  const ceiling = Math.ceil(Math.max(...dbs) / 10) * 10;
  const floor = ceiling - 60;
  const y = (db: number): number =>
    bottom - ((Math.max(db, floor) - floor) / (ceiling - floor)) * (bottom - top);
  const ticks: string[] = [];
  g.textAlign = 'right';
  for (let db = floor; db <= ceiling; db += 10) {
    const py = Math.round(y(db)) + 0.5;
    g.strokeStyle = '#eeeeee';
    g.beginPath();
    g.moveTo(left + 1, py);
    g.lineTo(w - 8, py);
    g.stroke();
    g.strokeStyle = '#999999';
    g.beginPath();
    g.moveTo(left - 4, py);
    g.lineTo(left, py);
    g.stroke();
    const label = db < 0 ? `−${-db}` : `${db}`;
    g.fillText(label, left - 6, py + 4);
    ticks.push(label);
  }
  g.textAlign = 'start';
  g.strokeStyle = '#1F4E8C';
  g.beginPath();
  dbs.forEach((db, i) => {
    const px = x((i + 1) * binHz);
    const py = y(db);
    if (i === 0) g.moveTo(px, py);
    else g.lineTo(px, py);
  });
  g.stroke();
  describe(canvas, 'data-db-ticks', ticks.join(' '));
  describe(
    canvas,
    'aria-label',
    `Power spectrum of ${channelName} in ${SPECTRUM_UNIT}, ${floor} to ${ceiling} dB, 0 to ${maxHz} Hz`,
  );
}

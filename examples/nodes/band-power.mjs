#!/usr/bin/env node
/* global process, console */
/**
 * Band power: alpha (8–12 Hz) power per channel over a sliding window. For each input frame, once
 * the window is full, it sends one row: per channel, the sum of the one-sided periodogram over the
 * DFT bins within [low, high] Hz of the last `windowSeconds` of samples (rectangular window). By
 * Parseval that is the mean square of the signal's content in the band, in input units squared:
 * a sine of amplitude A at 10 Hz gives A²/2.
 *
 * Config: `windowSeconds` (default 1), `low` (Hz, default 8), `high` (Hz, default 12).
 * Output: same channels, one sample per input frame (sampleRate = input rate / frame length).
 */
const { run, frameLike, sampleCount } = await import(process.env.HEADSETD_SDK ?? 'headsetd/sdk');

const settings = { windowSeconds: 1, low: 8, high: 12 };
/** Per port: rate, width, window size, per-channel sample history and the DFT tables of the band's bins. */
const states = new Map();

function prepare(port, frame) {
  const current = states.get(port);
  if (current !== undefined && current.rate === frame.sampleRate && current.width === frame.channels.length) {
    return current;
  }
  const size = Math.max(2, Math.round(settings.windowSeconds * frame.sampleRate));
  const bins = [];
  for (let k = 1; k <= size / 2; k += 1) {
    const hz = (k * frame.sampleRate) / size;
    if (hz < settings.low || hz > settings.high) continue;
    const cos = new Float64Array(size);
    const sin = new Float64Array(size);
    for (let n = 0; n < size; n += 1) {
      cos[n] = Math.cos((2 * Math.PI * k * n) / size);
      sin[n] = Math.sin((2 * Math.PI * k * n) / size);
    }
    // One-sided: bins below Nyquist count twice, the Nyquist bin once.
    bins.push({ cos, sin, weight: (2 * k === size ? 1 : 2) / (size * size) });
  }
  const state = {
    rate: frame.sampleRate,
    width: frame.channels.length,
    size,
    histories: frame.channels.map(() => []),
    bins,
  };
  states.set(port, state);
  return state;
}

function power(samples, bins) {
  let total = 0;
  for (const { cos, sin, weight } of bins) {
    let re = 0;
    let im = 0;
    for (let n = 0; n < samples.length; n += 1) {
      re += samples[n] * cos[n];
      im += samples[n] * sin[n];
    }
    total += weight * (re * re + im * im);
  }
  return total;
}

run({
  inputs: ['in'],
  outputs: ['out'],
  onStart(config) {
    for (const key of Object.keys(settings)) {
      if (config[key] !== undefined) settings[key] = Number(config[key]);
    }
    if (!(settings.low > 0 && settings.low < settings.high)) throw new Error('need 0 < low < high');
    console.error(`band power ${settings.low}-${settings.high} Hz over ${settings.windowSeconds} s`);
  },
  onData(port, frame, send) {
    const state = prepare(port, frame);
    const rows = sampleCount(frame);
    for (let i = 0; i < rows; i += 1) {
      state.histories.forEach((history, c) => {
        history.push(frame.data[i * state.width + c]);
        if (history.length > state.size) history.shift();
      });
    }
    if (rows === 0 || state.histories[0].length < state.size) return;
    const row = state.histories.map((history) => power(history, state.bins));
    send('out', frameLike(frame, [row], { sampleRate: frame.sampleRate / rows }));
  },
  onSignal(name, payload) {
    console.error(`signal ${name} ${JSON.stringify(payload)}`);
  },
});

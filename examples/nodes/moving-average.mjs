#!/usr/bin/env node
/* global process, console */
/**
 * A moving-average node: each output sample is the mean of the last `window` input samples of its
 * channel (fewer at the very start), carried across frames. Same channels, rate and timestamps as
 * the input. Config: `window` (samples, default 5).
 *
 * It loads the SDK that headsetd points it to (HEADSETD_SDK), so this one file runs from an
 * executables directory with no `npm install`; inside a project that depends on headsetd,
 * `import { run, frameLike } from 'headsetd/sdk'` does the same.
 */
const { run, frameLike } = await import(process.env.HEADSETD_SDK ?? 'headsetd/sdk');

/** Per port and channel: the last `window` samples. */
const history = new Map();
let window = 5;

function averager(port, width) {
  let state = history.get(port);
  if (state === undefined || state.width !== width) {
    state = { width, rings: Array.from({ length: width }, () => []) };
    history.set(port, state);
  }
  return state;
}

run({
  inputs: ['in'],
  outputs: ['out'],
  onStart(config) {
    if (config.window !== undefined) {
      if (!Number.isInteger(config.window) || config.window < 1) {
        throw new Error(`'window' must be a positive integer, not ${JSON.stringify(config.window)}`);
      }
      window = config.window;
    }
    console.error(`moving average over ${window} samples`);
  },
  onData(port, frame, send) {
    const width = frame.channels.length;
    const { rings } = averager(port, width);
    const out = new Float32Array(frame.data.length);
    for (let offset = 0; offset < frame.data.length; offset += width) {
      for (let c = 0; c < width; c += 1) {
        const ring = rings[c];
        ring.push(frame.data[offset + c]);
        if (ring.length > window) ring.shift();
        // Summed afresh each time: a running sum would drift over hours of float rounding.
        let sum = 0;
        for (const value of ring) sum += value;
        out[offset + c] = sum / ring.length;
      }
    }
    send('out', frameLike(frame, out));
  },
  onSignal(name, payload) {
    console.error(`signal ${name} ${JSON.stringify(payload)}`);
  },
});

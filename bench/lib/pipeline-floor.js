/**
 * The standard pipeline's work per frame, written plainly: make the frame's samples, filter them
 * with a plain cascade of the same second-order sections, encode the websocket node's JSON frame,
 * and append the frame's 24-bit BDF samples to a record written and fdatasynced once per second of
 * data. Used by `cpu.standard-pipeline.*` twice: in the bench's own process, hot in a loop (the
 * in-process floor), and in a child paced like a device (bench/lib/paced-floor.mjs).
 */
import { Buffer } from 'node:buffer';
import { fdatasyncSync, writeSync } from 'node:fs';
import { designFilter } from '../../dist/dsp/index.js';

export const FLOOR_CHANNELS = 21;
export const FLOOR_SPEC = { highpass: 1, lowpass: 40, notch: 50 };
const NAMES = Array.from({ length: FLOOR_CHANNELS }, (_, c) => `ch${c}`);

/** A plain cascade of second-order sections (Direct Form II transposed), state per channel. */
export function plainCascade(sos, channels) {
  const sections = sos.length / 6;
  const state = new Float64Array(channels * sections * 2);
  return (input, output) => {
    const rows = input.length / channels;
    for (let i = 0; i < rows; i++) {
      for (let c = 0; c < channels; c++) {
        let x = input[i * channels + c];
        for (let s = 0; s < sections; s++) {
          const k = s * 6;
          const z = (c * sections + s) * 2;
          const y = sos[k] * x + state[z];
          state[z] = sos[k + 1] * x - sos[k + 4] * y + state[z + 1];
          state[z + 1] = sos[k + 2] * x - sos[k + 5] * y;
          x = y;
        }
        output[i * channels + c] = x;
      }
    }
    return output;
  };
}

/**
 * `frame()` does one frame of `rows` rows at `rate` and returns its JSON text; the BDF record goes
 * to the open file `fd`. `samplesOnly()` makes the samples and nothing else (what acquisition does) and returns them.
 */
export function pipelineFloor(rate, rows, fd) {
  const filter = plainCascade(designFilter(FLOOR_SPEC, rate), FLOOR_CHANNELS);
  const input = new Float32Array(rows * FLOOR_CHANNELS);
  const output = new Float32Array(rows * FLOOR_CHANNELS);
  const record = Buffer.alloc(rate * FLOOR_CHANNELS * 3);
  const gain = 8388607 / 187500;
  let at = 0;
  let seq = 0;
  const samplesOnly = () => {
    for (let k = 0; k < input.length; k++) input[k] = 30 * Math.sin((seq * rows + k) / 9);
    seq++;
    return input;
  };
  const frame = () => {
    samplesOnly();
    filter(input, output);
    const data = [];
    for (let r = 0; r < rows; r++)
      data.push(Array.from(output.subarray(r * FLOOR_CHANNELS, (r + 1) * FLOOR_CHANNELS)));
    const text = JSON.stringify({
      seq,
      timestamp: 1.7e12 + seq * 10,
      sampleRate: rate,
      channels: NAMES,
      data,
    });
    for (let k = 0; k < output.length; k++) {
      at = record.writeIntLE(Math.max(-8388608, Math.min(8388607, Math.round(output[k] * gain))), at, 3);
      if (at === record.length) {
        writeSync(fd, record);
        fdatasyncSync(fd);
        at = 0;
      }
    }
    return text;
  };
  return { frame, samplesOnly };
}

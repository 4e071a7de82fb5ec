/**
 * The benchmarks' deterministic pseudo-EEG: on every channel a sine plus uniform noise from one
 * xorshift32 stream (seed 12345), row-major float32, so headsetd and scipy/sklearn read the very
 * same samples.
 */

/**
 * @param {{rows: number, channels: number, rate: number, frequency: number, amplitude: number, noise: number}} spec
 *   `noise` is the peak-to-peak width of the uniform noise.
 */
export function sineInNoise({ rows, channels, rate, frequency, amplitude, noise }) {
  const x = new Float32Array(rows * channels);
  let s = 12345;
  for (let i = 0; i < rows; i++) {
    const sine = amplitude * Math.sin((2 * Math.PI * frequency * i) / rate);
    for (let c = 0; c < channels; c++) {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      x[i * channels + c] = sine + ((s >>> 0) / 2 ** 32 - 0.5) * noise;
    }
  }
  return x;
}

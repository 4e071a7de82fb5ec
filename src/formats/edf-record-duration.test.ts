import { describe, expect, it } from 'vitest';
import { FormatError } from './format-error.js';
import { checkRecordDuration, chooseRecordDuration, MAX_RECORD_BYTES } from './edf-record-duration.js';

const layout = (sampleRate: number, channels: number, bytes: 2 | 3) => ({
  sampleRate,
  bytesPerSampleFrame: channels * bytes,
  annotationBytes: 512,
});

describe('record duration rule', () => {
  it.each([
    [250, 19, 2, 1, 250],
    [160, 64, 2, 1, 160],
    [2048, 64, 3, 0.125, 256],
    [16000, 19, 2, 0.1, 1600],
    [16000, 19, 3, 0.0625, 1000],
    [1000, 19, 3, 1, 1000],
    [8000, 19, 2, 0.2, 1600],
    [2.5, 1, 2, 0.8, 2],
    [7, 1, 2, 1, 7],
  ])('%d Hz × %d channels × %d bytes → %d s (%d samples)', (rate, channels, bytes, seconds, samples) => {
    const d = chooseRecordDuration(layout(rate, channels, bytes as 2 | 3));
    expect(d).toEqual({ seconds, samplesPerRecord: samples });
    // 2.5 Hz: no 1/k s holds whole samples (0.4 s would, 1 sample), so the largest other duration.
    expect(samples * channels * bytes + 512).toBeLessThanOrEqual(MAX_RECORD_BYTES);
    // The next longer 1/k duration (or 1 s) would not fit or not hold whole samples.
    if (seconds < 1 && Number.isInteger(rate))
      expect(rate * channels * bytes + 512).toBeGreaterThan(MAX_RECORD_BYTES);
  });

  it.each([0.5, 256.5, Math.PI * 100, 0, -1, Number.NaN])('refuses %d Hz with a clear error', (rate) => {
    expect(() => chooseRecordDuration(layout(rate, 19, 2))).toThrow(FormatError);
  });

  it('accepts a non-integer rate whose samples fit a whole number of microseconds', () => {
    expect(chooseRecordDuration(layout(1000 / 3, 19, 2))).toEqual({ seconds: 0.999, samplesPerRecord: 333 });
  });

  it('checks an explicit duration', () => {
    expect(checkRecordDuration(layout(250, 19, 2), 0.2)).toEqual({ seconds: 0.2, samplesPerRecord: 50 });
    expect(checkRecordDuration(layout(250, 19, 2), 2)).toEqual({ seconds: 2, samplesPerRecord: 500 });
    expect(() => checkRecordDuration(layout(250, 19, 2), 0.003)).toThrow(/whole number of samples/);
    expect(() => checkRecordDuration(layout(16000, 640, 3), 1)).toThrow(/10 MiB/);
  });
});

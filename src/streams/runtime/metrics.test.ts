import { describe, expect, it } from 'vitest';
import { LatencyWindow, percentile, selectRank } from './metrics.js';

describe('latency summaries without sorting the window', () => {
  it('selectRank finds the same value as sorting, for every rank, with ties and any order', () => {
    let state = 7;
    const next = () => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state / 2 ** 31;
    };
    for (const n of [1, 2, 3, 10, 101, 1000]) {
      const values = Array.from({ length: n }, () => Math.round(next() * 50) / 10);
      const sorted = [...values].sort((a, b) => a - b);
      for (let k = 0; k < n; k += Math.max(1, Math.floor(n / 17))) {
        expect(selectRank(Float64Array.from(values), n, k)).toBe(sorted[k]);
      }
    }
  });

  it('a summary gives the nearest-rank p50 and p99 of the last 10 s', () => {
    const window = new LatencyWindow();
    const latencies = Array.from({ length: 500 }, (_, i) => ((i * 37) % 500) / 100);
    latencies.forEach((ms, i) => {
      window.record(1_000 + i, ms);
    });
    window.record(-20_000, 1_000); // older than the window: left out
    const sorted = Float64Array.from(latencies).sort();
    const round = (v: number) => Math.round(v * 1000) / 1000;
    expect(window.summary(2_000)).toEqual({
      p50: round(percentile(sorted, 0.5)),
      p99: round(percentile(sorted, 0.99)),
    });
    expect(window.summary(100_000)).toBeUndefined();
  });
});

import { defineConfig } from 'vitest/config';
import LongKindsFirst from './test/support/sequencer.js';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // End-to-end tests start real servers, processes and sockets: give them room.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Three test files at a time: on a 2-core machine Vitest's default (cores − 1) runs them one by
    // one, and most files wait on sockets, processes and device time rather than compute. Measured
    // on 2 cores with two at a time: 257 s of wall time for 439 s of the files' own durations plus
    // about 75 s of starting them, i.e. both workers busy all along; a third overlaps the waiting.
    maxWorkers: 3,
    // The long kinds of files start first, so that none runs alone at the end (test/support/sequencer.ts).
    sequence: { sequencer: LongKindsFirst },
    globalSetup: ['test/support/global-setup.ts'],
    // `npm run coverage` (and CI): V8's own coverage of src/ as the tests load it. Code that runs
    // only in a stream's worker thread or in a spawned service is not seen by it, so the figure
    // is a lower bound.
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      exclude: ['src/**/*.test.ts', 'src/**/*.d.ts'],
      reporter: ['text-summary', 'json-summary', 'html'],
      reportsDirectory: 'coverage',
    },
  },
});

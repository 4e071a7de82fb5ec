import { defineConfig } from 'vitest/config';
import LongKindsFirst from './test/support/sequencer.js';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // End-to-end tests start real servers, processes and sockets: give them room.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Four test files at a time on a 2-core machine: most files wait on sockets, processes and
    // device time rather than compute. Vitest's default (cores − 1) ran them one by one; under
    // .ci/run in a fresh clone (2026-11-27), three at a time took 239–247 s of wall time for
    // ~590 s of the files' own durations plus ~60 s of starting them, four at a time 210 s.
    maxWorkers: 4,
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

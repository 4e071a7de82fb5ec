import { configDefaults, defineConfig } from 'vitest/config';
import LongKindsFirst from './test/support/sequencer.js';

// The files that need a process of their own run as before, each in a fresh worker ("isolated"
// project). Every other file runs in the "in-process" project without isolation: a worker loads
// src/ once and runs file after file in it, instead of loading the whole module graph again for
// every file (the API tests on the Fastify app's `inject`, the stream runtime, the devices on fake
// time, the writers with their Python and C references, and the end-to-end files that start the
// built service, Chromium, the Cyton emulator or worker runtimes, each stopping what it started).
// - test/lsl: liblsl peers on each file's fixed ports; not yet run without isolation.
// - test/devices/cyton-flood-memory.test.ts: compares the process's collected heap before and after
//   a flood within 10 %: in a shared worker the heap holds other files' modules and data, which
//   would loosen that bound; and it turns on --expose-gc for the whole process.
// - test/docs/tutorial-bci.test.ts: starts the built service and binds OSC port 9000.
// An in-process file that changes process-wide state puts it back in its own hooks, so that the
// next file in the worker starts as in a fresh one: fake timers (each file returns to real timers
// in afterEach, afterAll or a finally), process.env (test/api/config.test.ts,
// src/streams/runtime/external/child-env.test.ts), process listeners (yaml-text.test.ts); the
// device kinds are a constant list (src/device/kinds.test.ts passes its own). Vitest itself restores
// every vi.spyOn after each file; no file uses vi.mock, vi.stubGlobal or process.chdir.
// Measured on the 221 files of src/ and test/api, docs, contracts, formats, erp, recordings, web
// and schemas-meta (2026-11-29, a 2-core machine shared with other test runs), CPU of the run and
// its children (/usr/bin/time): each file isolated 567 s; in-process 376 s (and 344 s for the 220
// files without tutorial-bci) beside other runs, 295 s on the machine alone (import 105 s, all
// 1,886 tests passing). Vitest's "import" figure is wall time and moved with the load.
// The 80 files of test/e2e, test/runtime and test/devices moved here (2026-11-30, load average
// 15-40 from other runs; neither run passed whole, timeouts in 22 and 30 files): isolated 474 s of
// CPU, in-process 378 s. On 7 of them that passed (example-streams, osc, recorder-http,
// quick-streams, runtime-filter, test/runtime), twice each: isolated 28 and 31 s, in-process 30 s.
const ISOLATED = [
  'test/lsl/**/*.test.ts',
  'test/devices/cyton-flood-memory.test.ts',
  'test/docs/tutorial-bci.test.ts',
];

// What every file gets, in either project. End-to-end tests start real servers, processes and
// sockets: give them room.
const EACH_FILE = {
  testTimeout: 30_000,
  hookTimeout: 30_000,
  pool: 'forks',
  // A service a file left running (its start outlasted a hook's timeout) is killed at the file's end.
  setupFiles: 'test/support/file-end.ts',
} as const;

// The projects do not extend this file: with `extends: true` each would take its own copy of the
// global set-up (run once more per project) and of `include` (lists are joined, not replaced).
// The worker count, the sequencer, the global set-up and coverage are the run's, set here once.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'in-process',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...ISOLATED],
          isolate: false,
          ...EACH_FILE,
        },
      },
      { test: { name: 'isolated', include: ISOLATED, ...EACH_FILE } },
    ],
    // Six test files at a time on a 2-core machine: most files wait on sockets, processes and
    // device time rather than compute. Vitest's default (cores − 1) ran them one by one; under
    // .ci/run in a fresh clone (2026-11-27), three at a time took 239–247 s of wall time, four
    // 210 s. As the suite grew, four took 234 s (2026-11-30, `npm test` with the liblsl 1.16
    // tests, quiet) while the run and the processes it waited for used 262 s of CPU, 1.1 of the
    // two cores on average. Six at a time: 190–198 s quiet, 188–210 s beside `stress-ng --cpu 1`,
    // 208 s beside `--cpu 2`, `.ci/run` 202–206 s. A `.ci/run` at six (coverage on, load average 7)
    // once failed a liblsl 1.16 clock case (its last sample never framed); a likely cause, not
    // confirmed: the close-sample guard counted a live outlet gone when its answers came later
    // than 450 ms (src/lsl/close-sample.ts, mended since; the case now reports how far it got).
    maxWorkers: 6,
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

/**
 * After each test file (a setup file of both projects): the services it started and left running
 * are killed, so that none runs on beside the next files of an in-process worker (nor, orphaned,
 * beside the rest of the run). A file stops its own services in its hooks; this catches only one
 * whose start outlasted the hook's timeout under load. Then the file's temporary directories
 * (test/support/scratch.ts) are removed, nothing running in them any more.
 */
import { afterAll } from 'vitest';
import { removeScratchDirs } from './scratch.js';
import { killLeftServices } from './service.js';

afterAll(async () => {
  await killLeftServices();
  removeScratchDirs();
});

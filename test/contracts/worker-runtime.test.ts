/** The StreamRuntime contract, run against the real runtime: worker threads and real sockets. */
import { rmSync } from 'node:fs';
import { STREAM_HOST } from '../support/stream-host.js';
import { WorkerRuntime } from '../../src/streams/runtime/worker-runtime.js';
import { TEST_NODES_MODULE } from '../runtime/helpers.js';
import { runtimeContract } from './runtime-contract.js';
import { scratchDir } from '../support/scratch.js';

runtimeContract('WorkerRuntime', ({ device }) => {
  const dataDir = scratchDir('headsetd-contract-rt');
  const runtime = new WorkerRuntime({
    workerEntry: STREAM_HOST,
    dataDir,
    executablesDirs: [],
    device,
    extraExecutableModules: [TEST_NODES_MODULE],
  });
  return {
    runtime,
    async close() {
      await runtime.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});

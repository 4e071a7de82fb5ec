/**
 * Child process of the recorder kill -9 test: a WorkerRuntime running generator → recorders (EDF,
 * BDF, CSV) into DATA_DIR, printing every 50 ms how many samples each recorder has taken in.
 * usage (compiled by test/support/test-scripts.ts): node --enable-source-maps recorder-crash-child.mjs DATA_DIR
 */
import { randomUUID } from 'node:crypto';
import { WorkerRuntime } from '../../src/streams/runtime/worker-runtime.js';
import { STREAM_HOST } from '../support/stream-host.js';

const [dataDir] = process.argv.slice(2) as [string];
const runtime = new WorkerRuntime({ workerEntry: STREAM_HOST, dataDir, executablesDirs: [] });
const id = randomUUID();
const now = new Date().toISOString();
const formats = ['edf', 'bdf', 'csv'] as const;
await runtime.start({
  id,
  meta: { created: now, updated: now },
  nodes: [
    {
      id: 'gen',
      executable: 'signal-generator',
      config: { sampleRate: 500, amplitudes: [200, 40], frequencies: [7, 31], channels: 4 },
    },
    ...formats.map((format) => ({
      id: format,
      executable: 'recorder',
      config: { filename: 'crash', format },
    })),
  ],
  pipes: formats.map((format) => ({
    id: `p-${format}`,
    source: 'gen',
    destination: format,
    policy: 'block' as const,
  })),
});
setInterval(() => {
  const nodes = runtime.status(id)?.nodes;
  const counts = Object.fromEntries(formats.map((f) => [f, nodes?.[f]?.metrics.samplesProcessed ?? 0]));
  process.stdout.write(`${JSON.stringify(counts)}\n`);
}, 50);

/**
 * Child process of the recorder full-disk test, run under a file-size limit (`ulimit -f`) so that
 * the recording's writes fail with EFBIG as they would with ENOSPC. Runs generator → recorder in a
 * WorkerRuntime until the recorder leaves `running`, prints its status as JSON and exits.
 * usage: node --import tsx recorder-full-disk-child.ts DATA_DIR FORMAT
 * (8 channels at 4 kHz for EDF, 500 Hz for CSV: either fills 200 KiB in a few seconds).
 */
import { randomUUID } from 'node:crypto';
import { WorkerRuntime } from '../../src/runtime/worker-runtime.js';

// Without a handler the kernel's SIGXFSZ kills the process instead of failing the write.
process.on('SIGXFSZ', () => undefined);
const [dataDir, format] = process.argv.slice(2) as [string, string];
const runtime = new WorkerRuntime({ dataDir, executablesDirs: [] });
const id = randomUUID();
const now = new Date().toISOString();
await runtime.start({
  id,
  meta: { created: now, updated: now },
  nodes: [
    {
      id: 'gen',
      executable: 'signal-generator',
      config: {
        sampleRate: format === 'csv' ? 500 : 4000,
        amplitudes: [100],
        frequencies: [10],
        channels: 8,
      },
    },
    { id: 'rec', executable: 'recorder', config: { filename: 'full', format } },
  ],
  pipes: [{ id: 'p', source: 'gen', destination: 'rec', policy: 'block' }],
});
const deadline = Date.now() + 30_000;
const timer = setInterval(() => {
  const rec = runtime.status(id)?.nodes.rec;
  if (rec?.state === 'running' && Date.now() < deadline) return;
  clearInterval(timer);
  // Half a second more: a restart (which must not happen) would show.
  setTimeout(() => {
    process.stdout.write(JSON.stringify(runtime.status(id)?.nodes.rec ?? null));
    void runtime.close().then(() => process.exit(0));
  }, 500);
}, 20);

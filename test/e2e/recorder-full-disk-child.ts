/**
 * Child process of the recorder full-disk tests, run under a file-size limit (`ulimit -f`) so that
 * the recording's writes fail with EFBIG as they would with ENOSPC. Like the service, it first runs
 * startup repair on the recordings directory; then it runs generator → recorder as one fixed
 * stream (so a second run is the same stream restarted: it continues in a new segment) in a
 * WorkerRuntime until the runtime announces the recorder's end (node_crashed) and, when CAPACITY is
 * given (the capacity of the block pipe into the recorder), until that pipe refused frames. The
 * test's own timeout bounds the wait. Prints
 * `{rec, events, repairs}` as JSON (the recorder's status, the runtime's events, the repairs) and exits.
 * usage (compiled by test/support/test-scripts.ts): node --enable-source-maps recorder-full-disk-child.mjs DATA_DIR FORMAT [CAPACITY]
 * (8 channels at 4 kHz for EDF, 500 Hz for CSV: either fills 100 KiB in two or three seconds).
 */
import { recordingsDir, repairRecordings } from '../../src/recordings/index.js';
import { WorkerRuntime } from '../../src/streams/runtime/worker-runtime.js';
import { STREAM_HOST } from '../support/stream-host.js';
import type { RuntimeEvent } from '../../src/streams/runtime/stream-runtime.js';

// Without a handler the kernel's SIGXFSZ kills the process instead of failing the write.
process.on('SIGXFSZ', () => undefined);
const [dataDir, format, capacity] = process.argv.slice(2) as [string, string, string | undefined];
const repairs = repairRecordings(recordingsDir(dataDir));
const runtime = new WorkerRuntime({ workerEntry: STREAM_HOST, dataDir, executablesDirs: [] });
const events: RuntimeEvent[] = [];
runtime.onEvent((event) => events.push(event));
// The recorder's end is the runtime's node_crashed event for it, which says whether the
// supervisor restarts it (it must not: willRestart false). With CAPACITY, the pipe's overflow
// behind it shows only in the status the worker pushes, so that is read until it does.
const crashed = new Promise<void>((resolve) => {
  runtime.onEvent((event) => {
    if (event.type === 'node_crashed' && event.nodeId === 'rec') resolve();
  });
});
const id = 'f0110000-0000-4000-8000-000000000001';
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
  pipes: [
    {
      id: 'p',
      source: 'gen',
      destination: 'rec',
      policy: 'block',
      ...(capacity === undefined ? {} : { capacity: Number(capacity) }),
    },
  ],
});
await crashed;
const overflowed = (): boolean => {
  const status = runtime.status(id);
  return (
    status?.nodes.rec?.state !== 'running' &&
    (capacity === undefined || (status?.pipes.p?.framesDropped ?? 0) > 0)
  );
};
while (!overflowed()) await new Promise((resolve) => setTimeout(resolve, 20));
process.stdout.write(JSON.stringify({ rec: runtime.status(id)?.nodes.rec ?? null, events, repairs }));
await runtime.close();
process.exit(0);

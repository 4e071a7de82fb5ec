/**
 * A running stream's status in the snapshot period comes through its status board, not as
 * messages: the main thread (the API's) is not woken for it, and yet each read of the status is
 * as fresh as the period.
 */
import { afterEach, expect, test, vi } from 'vitest';
import { StreamWorker } from '../../src/streams/runtime/stream-worker.js';
import { WorkerRuntime } from '../../src/streams/runtime/worker-runtime.js';
import { STREAM_HOST } from '../support/stream-host.js';
import { eventually } from '../support/wait.js';
import { definition, pipe } from './helpers.js';
import { scratchDir } from '../support/scratch.js';

const dataDir = scratchDir('headsetd-status-board');
let runtime: WorkerRuntime | undefined;

afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
  vi.restoreAllMocks();
});

test('a running stream’s periodic status wakes the main thread with no message, and each read is fresh', async () => {
  const messages = vi.spyOn(
    StreamWorker.prototype as unknown as { onMessage(message: { kind: string }): void },
    'onMessage',
  );
  const snapshots = () => messages.mock.calls.filter(([m]) => m.kind === 'snapshot').length;
  const rt = new WorkerRuntime({
    workerEntry: STREAM_HOST,
    dataDir,
    executablesDirs: [],
    snapshotIntervalMs: 50,
  });
  runtime = rt;
  const stream = definition(
    [
      {
        id: 'gen',
        executable: 'signal-generator',
        config: { sampleRate: 250, amplitudes: [1, 1], frequencies: [10, 20] },
      },
      { id: 'ws', executable: 'websocket', config: { port: 0 } },
    ],
    [pipe('p', 'gen', 'ws')],
  );
  await rt.start(stream);
  const processed = () => rt.status(stream.id)?.nodes.ws?.metrics.itemsProcessed ?? 0;
  // Settled: the start's own pushes (each node's state change) are behind.
  await eventually(() => processed() > 10, 10_000, 'frames through the stream');
  const before = snapshots();
  const first = processed();
  // Ten snapshot periods or more, as the reads show.
  await eventually(() => processed() > first + 25, 10_000, 'more frames through the stream');
  expect(snapshots()).toBe(before);
  expect(rt.status(stream.id)?.nodes.ws?.state).toBe('running');
});

/**
 * Preloaded into a service under test (`node --import`, through NODE_OPTIONS): counts, by their
 * `kind`, the messages the main thread receives from its worker threads (the device's thread, the
 * stream workers), and writes the counts as JSON to the file HEADSETD_TALLY names when the process
 * gets SIGUSR2. So a test reads what reached the main thread, not how long anything took.
 */
import { renameSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { isMainThread, Worker } from 'node:worker_threads';

if (isMainThread && process.env.HEADSETD_TALLY !== undefined) {
  const file = process.env.HEADSETD_TALLY;
  const counts = {};
  const emit = Worker.prototype.emit;
  Worker.prototype.emit = function (name, ...args) {
    if (name === 'message') {
      // A device frame without text crosses as one buffer (core/frame-wire.ts packFrame).
      const kind =
        args[0] instanceof ArrayBuffer
          ? 'device-frame'
          : typeof args[0]?.kind === 'string'
            ? args[0].kind
            : '?';
      counts[kind] = (counts[kind] ?? 0) + 1;
    }
    return emit.call(this, name, ...args);
  };
  process.on('SIGUSR2', () => {
    // Whole or absent: the test reads it once it is there.
    writeFileSync(`${file}.part`, JSON.stringify(counts));
    renameSync(`${file}.part`, file);
  });
}

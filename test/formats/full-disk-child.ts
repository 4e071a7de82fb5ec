/**
 * Child process of the full-disk test, run under a file-size limit (`ulimit -f`), so writes past
 * it fail with EFBIG as they would with ENOSPC on a full disk. Writes until the writer throws,
 * closes, and prints what it saw as JSON.
 * usage: node --import tsx full-disk-child.ts FILE edf|csv
 */
import { CsvWriter } from '../../src/formats/csv-writer.js';
import { EdfWriter } from '../../src/formats/edf-writer.js';

// Without a handler the kernel's SIGXFSZ kills the process instead of failing the write.
process.on('SIGXFSZ', () => undefined);
const [path, kind] = process.argv.slice(2) as [string, 'edf' | 'csv'];
const channels = ['a', 'b'];
const writer =
  kind === 'edf'
    ? EdfWriter.open(path, {
        format: 'edf',
        sampleRate: 250,
        channels: channels.map((label) => ({ label, physicalMin: -1, physicalMax: 1 })),
        startTime: new Date('2026-01-01T00:00:00Z'),
      })
    : CsvWriter.open(path, { channels, sampleRate: 250 });
const block = new Float32Array(500).map((_, i) => Math.fround(Math.sin(i) / 2));
let writeError: string | undefined;
try {
  for (let i = 0; i < 10_000; i++) writer.write(block, 250);
} catch (error) {
  writeError = (error as NodeJS.ErrnoException).code;
}
let closeError: string | undefined;
try {
  writer.close();
} catch (error) {
  closeError = (error as NodeJS.ErrnoException).code;
}
process.stdout.write(
  JSON.stringify({
    writeError,
    closeError,
    bytesWritten: writer.bytesWritten,
    units: writer instanceof EdfWriter ? writer.recordsWritten : writer.rowsWritten,
  }),
);

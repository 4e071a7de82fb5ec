/**
 * The tests' temporary directories: made under the system's temp directory, named with a prefix
 * that says whose they are, and removed when the test file that made them ends
 * (test/support/file-end.ts, after the services the file left running are killed). A run of the
 * suite used to leave about 280 of them behind (data directories, liblsl homes, pty pairs). A
 * test may still remove its own sooner (to free a disk at once, or to see a service start on
 * nothing): removal here forgives a directory already gone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const made: string[] = [];
let removedAtExit = false;

/**
 * A new empty directory `<tmp>/<prefix>-XXXXXX`, removed at the end of the current test file, or
 * as the process exits where no test file runs (the probes a test starts in a network namespace).
 */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `${prefix}-`));
  made.push(dir);
  if (!removedAtExit) {
    removedAtExit = true;
    process.once('exit', removeScratchDirs);
  }
  return dir;
}

/** Removes every directory {@link scratchDir} made so far (the end of a test file). */
export function removeScratchDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

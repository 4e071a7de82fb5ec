/**
 * The test run's Python fork server (test/support/python_fork_server.py): one /usr/bin/python3 that
 * imports numpy, scipy, MNE and scikit-learn once, as it starts, and forks a process per
 * connection for test/support/python.ts. The global set-up starts it and names its socket in
 * {@link PYTHON_SOCKET_VARIABLE} for the workers; a test process started without it (no global
 * set-up) starts one of its own.
 *
 * It lives in a temporary directory of its own (the socket and its processes' stray output) and
 * ends at the end of its stdin: when it is stopped, or when the process that started it dies.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

export const PYTHON = '/usr/bin/python3';
export const PYTHON_SOCKET_VARIABLE = 'HEADSETD_TEST_PYTHON_SOCKET';
const SERVER = path.join(import.meta.dirname, 'python_fork_server.py');

/**
 * What the references import (mne-check.ts, mne-erp.ts, scipy.ts, ssvep_reference.py...), loaded
 * by the server before it forks. MNE loads its submodules when first used: its EDF and BDF readers
 * are named here so that they are loaded once too.
 */
export const PRELOADED = [
  'numpy',
  'scipy.signal',
  'scipy.io',
  'mne',
  'mne.io',
  'mne.io.edf',
  'sklearn.cross_decomposition',
];

export interface PythonForkServer {
  /** The unix socket a client connects to. */
  readonly socket: string;
  /** Ends the server (and any process it still has) and waits for its exit. */
  stop(): Promise<void>;
}

/**
 * Starts a server, which loads `modules` once it listens (a connection meanwhile waits for them).
 * An `owned` one is this process's own: it does not keep the process alive, and it ends when the
 * process does.
 */
export async function startPythonForkServer({
  owned = false,
  modules = PRELOADED,
}: {
  owned?: boolean;
  modules?: readonly string[];
} = {}): Promise<PythonForkServer> {
  const directory = mkdtempSync(path.join(tmpdir(), 'headsetd-python-'));
  const socket = path.join(directory, 'server.sock');
  const child = spawn(PYTHON, ['-u', SERVER, socket, ...modules], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exit = once(child, 'exit');
  const lines = createInterface({ input: child.stdout });
  const [first] = (await Promise.race([
    once(lines, 'line'),
    exit.then(([code, signal]) => {
      throw new Error(`${PYTHON} ${SERVER} exited (${signal ?? code}) before it listened`);
    }),
  ])) as [string];
  if (first !== 'ready') throw new Error(`${PYTHON} ${SERVER} said ${first}`);
  lines.close();
  child.stdout.destroy();
  if (owned) {
    child.unref();
    (child.stdin as unknown as { unref(): void }).unref();
    process.once('exit', () => {
      rmSync(directory, { recursive: true, force: true });
    });
  }
  return {
    socket,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.stdin.end();
        await exit;
      }
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

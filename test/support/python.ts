/**
 * The tests' independent references in Python (Debian's /usr/bin/python3 with scipy, MNE and
 * scikit-learn), answered by one python process per test file (test/support/python_server.py).
 * Importing numpy, scipy or MNE costs one to two seconds of CPU, which a process per reference
 * paid at every call, and a process per file once per file: the process is forked by the run's
 * fork server (python-fork-server.ts), which imported them once for the whole run, so a file's
 * process starts with them loaded and costs a fork. Each file still has a process of its own: one
 * file's calls never see another's modules or state.
 *
 * A reference is a function of a module: its source written beside the test ({@link pythonSource})
 * or a .py file ({@link pythonFile}). Arguments and the value travel as JSON; a Float32Array or
 * Float64Array argument arrives as a numpy array (base64, not a list of numbers). Or it is a script
 * written as for `python3 -c` ({@link runPythonScript}): its arguments, its standard input and what
 * it prints. A failure in Python rejects with a {@link PythonError} carrying Python's traceback.
 *
 * The process starts on the first call of the file and does not keep the test's process alive while
 * idle. It ends with the test file: after its last test the file's afterAll closes its connection
 * and waits for it to exit; on exit it is killed, and it stops when its connection closes if this
 * process dies (and dies with the fork server). Its CPU time is counted as the fork server's
 * children's, and so as the test run's.
 * Python that must be a process of its own (a client that is killed, one whose exit status is the
 * point, a receiver on a socket) is spawned by its test, not run here.
 */
import { once } from 'node:events';
import { readFileSync, rmSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import path from 'node:path';
import { afterAll, expect } from 'vitest';
import { PYTHON, PYTHON_SOCKET_VARIABLE, startPythonForkServer } from './python-fork-server.js';

export interface PythonModule {
  /** The module's name in Python and in its tracebacks. */
  readonly name: string;
  readonly source?: string;
  readonly path?: string;
}

/** A module whose source is written in the test (compiled once per process). */
export function pythonSource(name: string, source: string): PythonModule {
  return { name, source };
}

/** A module kept in a .py file (imported once per process, not as __main__). */
export function pythonFile(file: string): PythonModule {
  return { name: path.basename(file, '.py'), path: file };
}

export interface PythonOutput<T> {
  value: T;
  /** What the call printed (its warnings too). */
  stdout: string;
  stderr: string;
}

export class PythonError extends Error {
  constructor(
    message: string,
    readonly traceback: string,
  ) {
    super(`${message}\n${traceback}`);
    this.name = 'PythonError';
  }
}

interface Answer {
  id: number;
  ok: boolean;
  value?: unknown;
  error?: string;
  stdout: string;
  stderr: string;
}

interface Pending {
  what: string;
  resolve: (answer: Answer) => void;
  reject: (error: Error) => void;
}

/** Typed arrays as tagged base64 (the server makes numpy arrays of them). */
function encode(_key: string, value: unknown): unknown {
  if (value instanceof Float64Array || value instanceof Float32Array) {
    const tag = value instanceof Float64Array ? '$float64' : '$float32';
    return { [tag]: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
  }
  return value;
}

/** What a connection's process says first: who it is, and where its stray output goes. */
interface Greeting {
  pid: number;
  stderr: string;
}

let forkServer: Promise<string> | undefined;

/** The run's fork server (the global set-up's), or this process's own when there is none. */
function forkServerSocket(): Promise<string> {
  forkServer ??= (async () => {
    const socket = process.env[PYTHON_SOCKET_VARIABLE];
    if (socket !== undefined && socket !== '') return socket;
    const own = await startPythonForkServer({ owned: true });
    return own.socket;
  })();
  return forkServer;
}

class Server {
  private readonly socket: Promise<Socket>;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private chunks: Buffer[] = [];
  private greeting: Greeting | undefined;
  private greeted: (() => void) | undefined;
  private closing = false;
  private exited: string | undefined;
  private readonly kill = (): void => {
    if (this.greeting !== undefined && this.exited === undefined) {
      try {
        process.kill(this.greeting.pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  };

  /** @param file the test file whose calls this process answers */
  constructor(readonly file: string | undefined) {
    this.socket = forkServerSocket().then((file) => this.connect(file));
    // A failure is the first request's to report.
    this.socket.catch(() => undefined);
  }

  /** Sends `request` (a call or a script) and resolves with its answer. */
  async ask(what: string, request: Record<string, unknown>): Promise<Answer> {
    const socket = await this.socket;
    if (this.exited !== undefined) throw new Error(this.exited);
    const id = this.nextId++;
    return new Promise<Answer>((resolve, reject) => {
      if (this.pending.size === 0) socket.ref();
      this.pending.set(id, { what, resolve, reject });
      socket.write(`${JSON.stringify({ id, ...request }, encode)}\n`);
    });
  }

  /** Ends the process at the end of its requests (at once if an answer is still awaited) and waits for it. */
  async close(): Promise<void> {
    const socket = await this.socket.catch(() => undefined);
    if (socket === undefined || this.exited !== undefined) return;
    this.closing = true;
    const closed = once(socket, 'close');
    if (this.pending.size > 0) this.kill();
    socket.end();
    await closed;
  }

  private async connect(file: string): Promise<Socket> {
    const socket = createConnection(file);
    socket.on('data', (chunk: Buffer) => {
      this.read(chunk);
    });
    socket.on('error', () => {
      // The close handler below says why.
    });
    const greeted = new Promise<void>((resolve) => {
      this.greeted = resolve;
    });
    socket.on('close', () => {
      process.removeListener('exit', this.kill);
      this.fail(`${PYTHON} forked by ${file} ended${this.closing ? '' : ` unasked${this.strayOutput()}`}`);
      this.greeted?.();
    });
    process.once('exit', this.kill);
    await greeted;
    if (this.exited !== undefined) throw new Error(this.exited);
    socket.unref();
    return socket;
  }

  /** What the process wrote outside its answers (a crash's message), when it died unasked. */
  private strayOutput(): string {
    if (this.greeting === undefined) return '';
    try {
      const text = readFileSync(this.greeting.stderr, 'utf8');
      rmSync(this.greeting.stderr, { force: true });
      return `\n${text.slice(-16_384)}`;
    } catch {
      return '';
    }
  }

  private read(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(10); end >= 0; end = chunk.indexOf(10, start)) {
      this.chunks.push(chunk.subarray(start, end));
      const line = Buffer.concat(this.chunks).toString('utf8');
      this.chunks = [];
      start = end + 1;
      if (this.greeting === undefined) {
        this.greeting = JSON.parse(line) as Greeting;
        this.greeted?.();
        continue;
      }
      const answer = JSON.parse(line) as Answer;
      const pending = this.pending.get(answer.id);
      this.pending.delete(answer.id);
      if (this.pending.size === 0) void this.socket.then((socket) => socket.unref());
      if (pending === undefined) continue;
      if (answer.ok) pending.resolve(answer);
      else pending.reject(new PythonError(`${pending.what} failed in ${PYTHON}:`, answer.error ?? ''));
    }
    if (start < chunk.length) this.chunks.push(chunk.subarray(start));
  }

  private fail(message: string): void {
    this.exited ??= message;
    for (const pending of this.pending.values()) pending.reject(new Error(`${pending.what}: ${message}`));
    this.pending.clear();
    if (server === this) server = undefined;
  }
}

let server: Server | undefined;

/** This file's process: a new one when the worker has gone on to another file. */
function serverOfThisFile(): Server {
  const file = expect.getState().testPath;
  if (server !== undefined && server.file !== file) {
    void server.close();
    server = undefined;
  }
  server ??= new Server(file);
  return server;
}

// Registered as this module is imported, which is while the test file is collected: a hook of the
// file. Where files share a worker's modules (vitest.config.ts, the in-process project), only the
// first file to import this registers it; a later file's process ends when the worker goes on to
// the next file that calls Python, or with the worker.
afterAll(async () => {
  const ending = server;
  server = undefined;
  await ending?.close();
});

/** Calls `fn(...args)` of the module in this file's python: its value and what it printed. */
export async function runPython<T>(
  module: PythonModule,
  fn: string,
  ...args: unknown[]
): Promise<PythonOutput<T>> {
  const answer = await serverOfThisFile().ask(`${module.name}.${fn}`, { module, function: fn, args });
  return { value: answer.value as T, stdout: answer.stdout, stderr: answer.stderr };
}

/** Calls `fn(...args)` of the module in this file's python: its value. */
export async function callPython<T>(module: PythonModule, fn: string, ...args: unknown[]): Promise<T> {
  return (await runPython<T>(module, fn, ...args)).value;
}

/**
 * Runs `source` as `python3 -c source ...argv` would, `stdin` as its standard input, in this file's
 * python (in a namespace of its own): what it printed. A script that raises (or exits non-zero)
 * rejects with a {@link PythonError}.
 */
export async function runPythonScript(
  source: string,
  argv: readonly string[] = [],
  stdin = '',
): Promise<{ stdout: string; stderr: string }> {
  const answer = await serverOfThisFile().ask('python3 -c script', { script: source, argv, stdin });
  return { stdout: answer.stdout, stderr: answer.stderr };
}

/**
 * The tests' independent references in Python (Debian's /usr/bin/python3 with scipy, MNE and
 * scikit-learn), run by one long-lived python process per test file (test/support/python_server.py).
 * Importing numpy, scipy or MNE costs one to two seconds of CPU, which a process per reference
 * paid at every call; the server pays it once per file and keeps each module loaded.
 *
 * A reference is a function of a module: its source written beside the test ({@link pythonSource})
 * or a .py file ({@link pythonFile}). Arguments and the value travel as JSON; a Float32Array or
 * Float64Array argument arrives as a numpy array (base64, not a list of numbers). Or it is a script
 * written as for `python3 -c` ({@link runPythonScript}): its arguments, its standard input and what
 * it prints. A failure in Python rejects with a {@link PythonError} carrying Python's traceback.
 *
 * The process starts on the first call and does not keep the test's process alive while idle. It
 * ends with the test file: after its last test the file's afterAll closes its stdin and waits for
 * it to exit (so its CPU time is this process's children's); on exit it is killed, and it stops at
 * the end of its stdin if this process dies.
 * Python that must be a process of its own (a client that is killed, one whose exit status is the
 * point, a receiver on a socket) is spawned by its test, not run here.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import type { Socket } from 'node:net';
import path from 'node:path';
import { afterAll } from 'vitest';

export const PYTHON = '/usr/bin/python3';
const SERVER = path.join(import.meta.dirname, 'python_server.py');

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

/** A child's stdio stream is a pipe socket, which can be ref'd and unref'd (its type does not say so). */
function pipeOf(stream: object): Pick<Socket, 'ref' | 'unref'> {
  return stream as Pick<Socket, 'ref' | 'unref'>;
}

class Server {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private chunks: Buffer[] = [];
  /** The end of python's stderr, for the message when it dies. */
  private stderrTail = '';
  private exited: string | undefined;

  constructor() {
    this.child = spawn(PYTHON, ['-u', SERVER], { stdio: ['pipe', 'pipe', 'pipe'] });
    const kill = (): void => {
      this.child.kill('SIGKILL');
    };
    process.once('exit', kill);
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.read(chunk);
    });
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-16_384);
    });
    this.child.stdin.on('error', () => {
      // The exit handler below says why.
    });
    this.child.on('error', (error) => {
      this.fail(`${PYTHON} could not start: ${error.message}`);
    });
    this.child.on('exit', (code, signal) => {
      process.removeListener('exit', kill);
      this.fail(`${PYTHON} ${SERVER} exited (${signal ?? code})\n${this.stderrTail}`);
    });
    this.idle();
  }

  /** Sends `request` (a call or a script) and resolves with its answer. */
  ask(what: string, request: Record<string, unknown>): Promise<Answer> {
    if (this.exited !== undefined) return Promise.reject(new Error(this.exited));
    const id = this.nextId++;
    return new Promise<Answer>((resolve, reject) => {
      if (this.pending.size === 0) this.busy();
      this.pending.set(id, { what, resolve, reject });
      this.child.stdin.write(`${JSON.stringify({ id, ...request }, encode)}\n`);
    });
  }

  /** Ends python at the end of its stdin (at once if an answer is still awaited) and waits for its exit. */
  async close(): Promise<void> {
    if (this.exited !== undefined) return;
    const exit = once(this.child, 'exit');
    if (this.pending.size > 0) this.child.kill('SIGKILL');
    this.child.stdin.end();
    await exit;
  }

  private read(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(10); end >= 0; end = chunk.indexOf(10, start)) {
      this.chunks.push(chunk.subarray(start, end));
      const line = Buffer.concat(this.chunks).toString('utf8');
      this.chunks = [];
      start = end + 1;
      const answer = JSON.parse(line) as Answer;
      const pending = this.pending.get(answer.id);
      this.pending.delete(answer.id);
      if (this.pending.size === 0) this.idle();
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

  /** While an answer is awaited the pipes keep the event loop alive; idle, they do not. */
  private busy(): void {
    this.child.ref();
    pipeOf(this.child.stdout).ref();
  }

  private idle(): void {
    this.child.unref();
    for (const stream of [this.child.stdin, this.child.stdout, this.child.stderr]) pipeOf(stream).unref();
  }
}

let server: Server | undefined;

// Registered as this module is imported, which is while the test file is collected: a hook of the
// file. Where files share a worker's modules (vitest.config.ts, the in-process project), only the
// first file to import this registers it; a later file starts a python of its own, which ends
// with the worker.
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
  server ??= new Server();
  const answer = await server.ask(`${module.name}.${fn}`, { module, function: fn, args });
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
  server ??= new Server();
  const answer = await server.ask('python3 -c script', { script: source, argv, stdin });
  return { stdout: answer.stdout, stderr: answer.stderr };
}

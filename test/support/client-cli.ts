/**
 * Runs `headsetd` client commands (dist/headsetd.mjs) as a user does, against a service started
 * with test/support/service.ts: the exit code, stdout and stderr, and for follow modes the child
 * itself with its output lines as they come.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { CLI } from './service.js';

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: NodeJS.ProcessEnv;
  input?: string;
  /** The working directory of the command (default: the test's). */
  cwd?: string;
}

/** The environment of a client command: no HEADSETD_ variable of the machine leaks in. */
function environment(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('HEADSETD_')));
  return { ...env, NO_COLOR: '', ...extra };
}

export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: environment(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(options.input ?? '');
  return new Promise((resolve) => {
    child.once('close', (status) => {
      resolve({ status, stdout, stderr });
    });
  });
}

export interface FollowingCli {
  child: ChildProcess;
  /** Resolves with the next stdout line. */
  nextLine(): Promise<string>;
  stderr(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/** A client command that keeps running (a follow or a watch), read line by line. */
export function followCli(args: readonly string[], options: CliOptions = {}): FollowingCli {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: environment(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const next = waiting.shift();
    if (next === undefined) lines.push(line);
    else next(line);
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  return {
    child,
    nextLine: () =>
      lines.length > 0
        ? Promise.resolve(lines.shift() as string)
        : new Promise((resolve, reject) => {
            waiting.push(resolve);
            void exited.then((code) => {
              reject(new Error(`exited (${String(code)}) before the next line: ${stderr}`));
            });
          }),
    stderr: () => stderr,
    exited,
  };
}

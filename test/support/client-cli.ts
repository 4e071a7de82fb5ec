/**
 * Runs `headsetd` client commands against a service started with test/support/service.ts: the
 * exit code, stdout and stderr, and for follow modes the output lines as they come.
 *
 * `runCli` and `followCli` run the command in the test's own process, through the client's
 * runClient with the environment a process of its own would have (src/cli.ts hands the same:
 * the variables, stdout and stderr that are not terminals, as pipes are, the working directory,
 * standard input), and an error no command turns into an exit code is reported as the process
 * reports it (reportFailure). A command started as a process costs some 0.27 s of CPU, most of
 * a client test file's; in the process, a few milliseconds.
 *
 * `spawnCli` and `spawnFollowCli` start dist/headsetd.mjs as a user does: for what is about the
 * program itself (the exit code the shell sees, SIGINT, `--help` and `--version`, the service's
 * commands, the bundle). Each client test file keeps at least one such command, so the built
 * program stays covered end to end.
 */
import { spawn } from 'node:child_process';
import { reportFailure } from '../../src/client/failures.js';
import { ListenerSet } from '../../src/core/listener-set.js';
import { clientGroup, runClient } from '../../src/client/index.js';
import { defaultDataDir } from '../../src/service/data-dir.js';
import { CLI } from './service.js';
import { TextSink } from './text-sink.js';

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: NodeJS.ProcessEnv;
  /** Standard input (default: empty). */
  input?: string;
  /** The working directory of the command (default: the test's). */
  cwd?: string;
}

/** The environment of a client command: no HEADSETD_ variable of the machine leaks in. */
function environment(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('HEADSETD_')));
  return { ...env, NO_COLOR: '', ...extra };
}

/** runClient in this process, with what the process wrapper (src/cli.ts) adds: the last-resort report. */
function runInProcess(
  args: readonly string[],
  options: CliOptions,
  stdout: TextSink,
  stderr: TextSink,
  signal?: AbortSignal,
): Promise<number> {
  if (clientGroup(args) === undefined)
    throw new Error(`not a client command (use spawnCli): headsetd ${args.join(' ')}`);
  return runClient(args, {
    env: environment(options.env),
    stdout,
    stderr,
    readStdin: () => options.input ?? '',
    cwd: options.cwd ?? process.cwd(),
    defaultDataDir: defaultDataDir(),
    ...(signal === undefined ? {} : { signal }),
  }).catch((error: unknown) => reportFailure(error, stderr));
}

/** A client command run in the test's process, to its end. */
export async function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const stdout = new TextSink();
  const stderr = new TextSink();
  const status = await runInProcess(args, options, stdout, stderr);
  return { status, stdout: stdout.text, stderr: stderr.text };
}

/** `headsetd ARGS` started as a process (dist/headsetd.mjs), to its end. */
export function spawnCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
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
  /** Ctrl-C: SIGINT to a started process; the abort of the environment's signal in the test's process. */
  interrupt(): void;
  /** Resolves with the next stdout line. */
  nextLine(): Promise<string>;
  /** All of stdout so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves once `check` holds, checked now and after each piece of output. */
  until(check: () => boolean): Promise<void>;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/** What a follower printed: the lines not read yet, and the waits for output. */
class Followed {
  out = '';
  err = '';
  private partial = '';
  private readonly lines: string[] = [];
  private readonly readers: ((line: string) => void)[] = [];
  /** Called after each piece of output. */
  private readonly output = new ListenerSet<undefined>();

  stdout(text: string): void {
    this.out += text;
    const pieces = (this.partial + text).split('\n');
    this.partial = pieces.pop() ?? '';
    for (const line of pieces) this.line(line);
    this.changed();
  }

  stderr(text: string): void {
    this.err += text;
    this.changed();
  }

  /** The last line, when the output ended without a newline. */
  end(): void {
    if (this.partial !== '') this.line(this.partial);
    this.partial = '';
  }

  private line(line: string): void {
    const reader = this.readers.shift();
    if (reader === undefined) this.lines.push(line);
    else reader(line);
  }

  following(interrupt: () => void, exited: Promise<number | null>): FollowingCli {
    return {
      interrupt,
      nextLine: () =>
        this.lines.length > 0
          ? Promise.resolve(this.lines.shift() as string)
          : new Promise((resolve, reject) => {
              this.readers.push(resolve);
              void exited.then((code) => {
                reject(new Error(`exited (${String(code)}) before the next line: ${this.err}`));
              });
            }),
      stdout: () => this.out,
      stderr: () => this.err,
      until: (check) =>
        new Promise((resolve) => {
          if (check()) {
            resolve();
            return;
          }
          const unsubscribe = this.output.add(() => {
            if (!check()) return;
            unsubscribe();
            resolve();
          });
        }),
      exited,
    };
  }

  private changed(): void {
    this.output.emit(undefined);
  }
}

/** A client command that keeps running (a follow or a watch) in the test's process, read line by line. */
export function followCli(args: readonly string[], options: CliOptions = {}): FollowingCli {
  const followed = new Followed();
  const controller = new AbortController();
  const exited = runInProcess(
    args,
    options,
    new TextSink(false, (text) => {
      followed.stdout(text);
    }),
    new TextSink(false, (text) => {
      followed.stderr(text);
    }),
    controller.signal,
  ).then((code) => {
    followed.end();
    return code;
  });
  return followed.following(() => {
    controller.abort();
  }, exited);
}

/** A client command that keeps running, started as a process (dist/headsetd.mjs). */
export function spawnFollowCli(args: readonly string[], options: CliOptions = {}): FollowingCli {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: environment(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  const followed = new Followed();
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (text: string) => {
    followed.stdout(text);
  });
  child.stderr.on('data', (text: string) => {
    followed.stderr(text);
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('close', (code) => {
      followed.end();
      resolve(code);
    }),
  );
  return followed.following(() => child.kill('SIGINT'), exited);
}

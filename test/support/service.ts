/**
 * Runs the real service (`node dist/headsetd.mjs serve`) as a child process on port 0, for end-to-end
 * tests. `npm test` builds dist/ first (pretest).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { scratchDir } from './scratch.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// The entry `npm start` and the `headsetd` command run: the bundled service.
export const CLI = path.join(ROOT, 'dist', 'headsetd.mjs');

export interface Service {
  url: string;
  port: number;
  dataDir: string;
  process: ChildProcess;
  /** Every stdout line after the listening line. */
  stdout: string[];
  stderr: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Services started and not yet exited, whoever holds them. */
const running = new Set<ChildProcess>();

/**
 * Kills the services a test file left running (test/support/file-end.ts calls it after each file):
 * one whose start outlasted its hook's timeout under load was never handed to the file's afterAll,
 * and would run on beside the next files of the worker.
 */
export async function killLeftServices(): Promise<number> {
  const left = [...running];
  await Promise.all(
    left.map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once('exit', () => {
            resolve();
          });
          if (!child.kill('SIGKILL') || child.exitCode !== null || child.signalCode !== null) resolve();
        }),
    ),
  );
  return left.length;
}

export function tempDataDir(): string {
  return scratchDir('headsetd-e2e');
}

export async function startService(
  options: {
    dataDir?: string;
    args?: string[];
    /** A command the service is run through (`unshare ...`): it must exec its arguments. */
    wrapper?: string[];
    /** LSL on these ports (a settings file passed with --config), away from any other LSL program. */
    lsl?: { multicastPort: number; basePort: number; portRange: number };
  } = {},
): Promise<Service> {
  const dataDir = options.dataDir ?? tempDataDir();
  const lsl = options.lsl;
  const settings = path.join(dataDir, 'lsl-settings.yaml');
  if (lsl !== undefined) {
    writeFileSync(
      settings,
      `lsl:\n  multicastPort: ${lsl.multicastPort}\n  basePort: ${lsl.basePort}\n  portRange: ${lsl.portRange}\n`,
    );
  }
  const argv = [
    process.execPath,
    CLI,
    'serve',
    '--port',
    '0',
    '--data-dir',
    dataDir,
    '--log-level',
    'warn',
    ...(lsl === undefined ? [] : ['--config', settings]),
    ...(options.args ?? []),
  ];
  const [command = process.execPath, ...rest] = [...(options.wrapper ?? []), ...argv];
  const child = spawn(command, rest, { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => {
    running.delete(child);
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      resolve({ code, signal });
    });
  });
  createInterface({ input: child.stderr }).on('line', (line) => {
    stderr.push(line);
  });
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    void exited.then(({ code }) => {
      reject(new Error(`service exited (${code}) before listening: ${stderr.join('\n')}`));
    });
  });
  lines.on('line', (line) => {
    stdout.push(line);
  });
  // 127.0.0.1 (or the address given with --host), or a bracketed IPv6 address such as
  // [::ffff:127.0.0.1] (loopback, yet served as remote).
  const match = /^headsetd listening on (http:\/\/(?:\d+\.\d+\.\d+\.\d+|\[[0-9a-f:.]+\]):(\d+))$/.exec(first);
  if (match === null) throw new Error(`unexpected first line: ${first}`);
  return {
    url: match[1] ?? '',
    port: Number(match[2]),
    dataDir,
    process: child,
    stdout,
    stderr,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

export async function json(url: string, init?: RequestInit): Promise<{ status: number; body: any }> {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** `json` with `method` and, when given, `body` sent as JSON. */
export function sendJson(
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  return json(url, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
}

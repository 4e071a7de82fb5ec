/**
 * A pseudo-terminal pair made by `socat` (Debian package socat): two serial-port-like paths whose
 * bytes cross over, raw, without echo. The Cyton tests put the emulator on one end and the driver,
 * through the real serial link (platform/serial), on the other. Killing socat is unplugging the dongle.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from './wait.js';
import { scratchDir } from './scratch.js';

export interface PtyPair {
  /** The emulator's end. */
  readonly board: string;
  /** The driver's end (what `--device cyton:<path>` names). */
  readonly host: string;
  /** Starts socat again on the same two paths (the dongle plugged back in). */
  restart(): Promise<void>;
  /** Kills socat: both ends vanish. Resolves when it has exited. */
  kill(): Promise<void>;
}

async function start(board: string, host: string): Promise<ChildProcess> {
  const child = spawn('socat', ['-d', '-d', `pty,raw,echo=0,link=${board}`, `pty,raw,echo=0,link=${host}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  // socat says "starting data transfer loop" once both ptys exist.
  await eventually(
    () => {
      if (child.exitCode !== null) throw new Error(`socat exited: ${stderr}`);
      return stderr.includes('starting data transfer loop') && existsSync(board) && existsSync(host);
    },
    10_000,
    'socat to make the pty pair',
  );
  return child;
}

export async function ptyPair(): Promise<PtyPair> {
  const dir = scratchDir('cyton-pty');
  const board = join(dir, 'board');
  const host = join(dir, 'host');
  let child: ChildProcess | undefined = await start(board, host);
  return {
    board,
    host,
    async restart() {
      child = await start(board, host);
    },
    async kill() {
      const c = child;
      child = undefined;
      if (c === undefined || c.exitCode !== null) return;
      const exited = new Promise<void>((resolve) =>
        c.once('exit', () => {
          resolve();
        }),
      );
      c.kill('SIGTERM');
      await exited;
    },
  };
}

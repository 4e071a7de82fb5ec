/**
 * Real liblsl for the conformance tests, built or fetched once into the machine's cache
 * (`$XDG_CACHE_HOME/headsetd-tests/liblsl`, else `~/.cache/…`: the libraries are fixed versions,
 * so every checkout of the machine shares them and a fresh clone does not spend a minute
 * rebuilding) and reused by later runs (a lock directory keeps two test files from building it at
 * once); the small test program is compiled into node_modules/.cache, from this checkout's source:
 *
 * - liblsl 1.16.2, built from the unmodified upstream source tarball in the oracle directory beside
 *   the repository (or `HEADSETD_ORACLES`) with Debian's cmake and g++ (about a minute);
 * - liblsl 1.12, the x86-64 shared object inside the npm package lsl.js@1.1.2 (taken out of
 *   `npm pack`, never installed: its FFI dependencies do not build on Node 20);
 * - lsltool, a small C program (test/lsl/lsltool.c) that drives either through dlopen.
 *
 * Every liblsl run gets a config that keeps it on loopback: IPv6 off, discovery scope `machine`
 * (127.0.0.1 only), and ports of the test's own, so that an LSL program of the machine is not seen.
 * liblsl 1.16 reads it from `LSLAPICFG`; 1.12 predates that variable and reads `~/lsl_api/lsl_api.cfg`,
 * so HOME points at a directory holding it.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { arch, homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const CACHE = path.join(
  process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'),
  'headsetd-tests',
  'liblsl',
);
const TOOL_DIR = path.join(ROOT, 'node_modules', '.cache', 'liblsl');
const ORACLES = process.env.HEADSETD_ORACLES ?? path.resolve(ROOT, '../shared/oracles');
const TARBALL = path.join(ORACLES, 'liblsl-1.16.2.tar.gz');
const TOOL_SOURCE = path.join(ROOT, 'test', 'lsl', 'lsltool.c');

export interface Liblsl {
  /** liblsl 1.16.2's shared object. */
  lib116: string;
  /** liblsl 1.12's, where the machine can load it (x86-64). */
  lib112: string | undefined;
  tool: string;
}

/** True when the oracle's source is there to build liblsl from. */
export const liblslAvailable = existsSync(TARBALL);

async function withLock<T>(work: () => T): Promise<T> {
  const lock = path.join(CACHE, '.lock');
  mkdirSync(CACHE, { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock left by a run that was killed is taken over after 10 minutes.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 600_000) rmSync(lock, { recursive: true, force: true });
      } catch {
        // gone meanwhile
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    return work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function build116(): string {
  const dir = path.join(CACHE, '1.16.2');
  const lib = path.join(dir, 'build', 'liblsl.so');
  if (existsSync(lib)) return lib;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync('tar', ['xzf', TARBALL, '-C', dir]);
  const source = path.join(
    dir,
    readdirSync(dir).find((name) => name.startsWith('liblsl')) ?? 'liblsl-1.16.2',
  );
  const build = path.join(dir, 'build');
  execFileSync('cmake', ['-S', source, '-B', build, '-DCMAKE_BUILD_TYPE=Release', '-DLSL_UNITTESTS=OFF'], {
    stdio: 'ignore',
  });
  execFileSync('cmake', ['--build', build, '--target', 'lsl', '-j2'], { stdio: 'ignore' });
  return lib;
}

function fetch112(): string | undefined {
  if (arch() !== 'x64') return undefined;
  const dir = path.join(CACHE, '1.12');
  const lib = path.join(dir, 'package', 'prebuilt', 'liblsl64.so');
  if (existsSync(lib)) return lib;
  mkdirSync(dir, { recursive: true });
  try {
    const name = execFileSync('npm', ['pack', 'lsl.js@1.1.2', '--silent', '--pack-destination', dir], {
      encoding: 'utf8',
      cwd: dir,
    })
      .trim()
      .split('\n')
      .pop();
    execFileSync('tar', ['xzf', path.join(dir, name ?? ''), '-C', dir, 'package/prebuilt/liblsl64.so']);
  } catch {
    return undefined;
  }
  return existsSync(lib) ? lib : undefined;
}

function buildTool(): string {
  mkdirSync(TOOL_DIR, { recursive: true });
  const tool = path.join(TOOL_DIR, 'lsltool');
  if (existsSync(tool) && statSync(tool).mtimeMs >= statSync(TOOL_SOURCE).mtimeMs) return tool;
  execFileSync('gcc', ['-O1', '-o', tool, TOOL_SOURCE, '-ldl']);
  return tool;
}

let cached: Promise<Liblsl> | undefined;

export function liblsl(): Promise<Liblsl> {
  cached ??= withLock(() => ({ lib116: build116(), lib112: fetch112(), tool: buildTool() }));
  return cached;
}

export interface LslPorts {
  multicastPort: number;
  basePort: number;
  portRange: number;
}

/** A HOME holding liblsl's config for these ports (and the same file for LSLAPICFG). */
export function liblslEnv(ports: LslPorts, extra = ''): NodeJS.ProcessEnv {
  const home = mkdtempSync(path.join(tmpdir(), 'headsetd-lsl-'));
  mkdirSync(path.join(home, 'lsl_api'));
  const file = path.join(home, 'lsl_api', 'lsl_api.cfg');
  writeFileSync(
    file,
    `[ports]\nIPv6 = disable\nMulticastPort = ${ports.multicastPort}\nBasePort = ${ports.basePort}\nPortRange = ${ports.portRange}\n[multicast]\nResolveScope = machine\n${extra}`,
  );
  return { ...process.env, HOME: home, LSLAPICFG: file };
}

/** A running lsltool: its stdout as lines, waited on by content. */
export class LslTool {
  readonly lines: string[] = [];
  private readonly waiters: { test: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;

  /** `input`: the test writes the tool's stdin with {@link send} (else it reads nothing). */
  constructor(tool: string, args: readonly string[], env: NodeJS.ProcessEnv, input = false) {
    this.child = spawn(tool, args, { env, stdio: [input ? 'pipe' : 'ignore', 'pipe', 'ignore'] });
    const reader = createInterface({ input: this.child.stdout! });
    reader.on('line', (line) => {
      this.lines.push(line);
      for (const waiter of [...this.waiters]) {
        if (waiter.test(line)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    });
    this.exited = new Promise((resolve) =>
      this.child.on('close', (code) => {
        resolve(code);
      }),
    );
  }

  /** The first line (so far or to come) starting with `prefix`. */
  waitFor(prefix: string): Promise<string> {
    const found = this.lines.find((line) => line.startsWith(prefix));
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve) => this.waiters.push({ test: (line) => line.startsWith(prefix), resolve }));
  }

  /** Samples printed: corrected timestamp and values. */
  samples(): { timestamp: number; values: number[] }[] {
    return this.lines
      .filter((line) => line.startsWith('S '))
      .map((line) => {
        const [, ts, ...values] = line.split(' ');
        return { timestamp: Number(ts), values: values.map(Number) };
      });
  }

  /** Writes a line to the tool's stdin. */
  send(line: string): void {
    this.child.stdin?.write(`${line}\n`);
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}

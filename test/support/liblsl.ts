/**
 * Real liblsl for the conformance tests, built or fetched once into the machine's cache
 * (`$XDG_CACHE_HOME/headsetd-tests/liblsl`, else `~/.cache/…`: the libraries are fixed versions,
 * so every checkout of the machine shares them and a fresh clone does not spend a minute
 * rebuilding) and reused by later runs (a lock directory keeps two test files from building it at
 * once); the small test program is compiled into node_modules/.cache, from this checkout's source
 * (named by the source's hash):
 *
 * - liblsl 1.12, the x86-64 shared object inside the npm package lsl.js@1.1.2 (taken out of
 *   `npm pack`, never installed: its FFI dependencies do not build on Node 20), so that the
 *   conformance tests run in any checkout;
 * - liblsl 1.16.2, optional: built with Debian's cmake and g++ (about a minute) from its unmodified
 *   upstream source tarball, found only in the directory the `HEADSETD_ORACLES` environment
 *   variable names (`.ci/run` sets it where the team keeps that tarball); without it the 1.16
 *   tests skip and say so;
 * - lsltool, a small C program (test/lsl/lsltool.c) that drives either through dlopen.
 *
 * Every liblsl run gets a config that keeps it on loopback: IPv6 off, discovery scope `machine`
 * (127.0.0.1 only), and ports of the test's own, so that an LSL program of the machine is not seen.
 * liblsl 1.16 reads it from `LSLAPICFG`; 1.12 predates that variable and reads `~/lsl_api/lsl_api.cfg`,
 * so HOME points at a directory holding it.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { arch, homedir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { scratchDir } from './scratch.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const CACHE = path.join(
  process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'),
  'headsetd-tests',
  'liblsl',
);
const TOOL_DIR = path.join(ROOT, 'node_modules', '.cache', 'liblsl');
const TARBALL_NAME = 'liblsl-1.16.2.tar.gz';
/** The directory of optional reference sources; nothing else tells the tests where it is. */
const ORACLES = process.env.HEADSETD_ORACLES || undefined;
const TOOL_SOURCE = path.join(ROOT, 'test', 'lsl', 'lsltool.c');

export type LiblslVersion = '1.16' | '1.12';
/** Every version the conformance tests check, newest first. */
export const LIBLSL_VERSIONS: readonly LiblslVersion[] = ['1.16', '1.12'];

const HOW_TO_ENABLE_116 =
  `set HEADSETD_ORACLES to a directory holding ${TARBALL_NAME} (the unmodified source of liblsl ` +
  `1.16.2, tag v1.16.2 of github.com/sccn/liblsl; built once per machine with cmake and g++)`;

/**
 * Why a liblsl version's tests cannot run on this machine, saying how to enable them, or undefined
 * when they can. An `HEADSETD_ORACLES` that holds no tarball is not a reason to skip: the 1.16
 * tests then fail, naming the directory, since someone asked for them.
 */
export function liblslMissing(version: LiblslVersion): string | undefined {
  if (version === '1.16') {
    return ORACLES === undefined ? `liblsl 1.16 tests skipped: ${HOW_TO_ENABLE_116}` : undefined;
  }
  return arch() === 'x64'
    ? undefined
    : `liblsl 1.12 tests skipped: its only binary (npm package lsl.js@1.1.2) is for x86-64, not ${arch()}`;
}

/** Versions whose tests can run here. */
export const liblslVersions = (): LiblslVersion[] =>
  LIBLSL_VERSIONS.filter((version) => liblslMissing(version) === undefined);

/** True when liblsl 1.16 can be built here (`HEADSETD_ORACLES` is set), which `liblsl()` needs. */
export const liblslAvailable = liblslMissing('1.16') === undefined;

const warned = new Set<LiblslVersion>();
/**
 * At the start of a test that needs `version`: skips it when that version cannot run here, with
 * the reason and how to enable it as the skip's note (and once per file on stderr, which the
 * default reporter shows).
 */
export function skipWithout(version: LiblslVersion, context: { skip: (note: string) => never }): void {
  const missing = liblslMissing(version);
  if (missing === undefined) return;
  if (!warned.has(version)) console.warn(missing);
  warned.add(version);
  context.skip(missing);
}

export interface Liblsl {
  /** liblsl 1.16.2's shared object. */
  lib116: string;
  /** liblsl 1.12's, where the machine can load it (x86-64). */
  lib112: string | undefined;
  tool: string;
}

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
  if (ORACLES === undefined) throw new Error(`liblsl 1.16 is not set up: ${HOW_TO_ENABLE_116}`);
  const tarball = path.join(ORACLES, TARBALL_NAME);
  if (!existsSync(tarball)) {
    throw new Error(`HEADSETD_ORACLES is ${ORACLES}, which holds no ${TARBALL_NAME}: ${HOW_TO_ENABLE_116}`);
  }
  const dir = path.join(CACHE, '1.16.2');
  const lib = path.join(dir, 'build', 'liblsl.so');
  if (existsSync(lib)) return lib;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync('tar', ['xzf', tarball, '-C', dir]);
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

function fetch112(): string {
  const missing = liblslMissing('1.12');
  if (missing !== undefined) throw new Error(missing);
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
  } catch (error) {
    throw new Error(
      `liblsl 1.12 comes from the npm registry (\`npm pack lsl.js@1.1.2\`), which failed: ${(error as Error).message}`,
    );
  }
  if (!existsSync(lib)) throw new Error(`lsl.js@1.1.2 holds no package/prebuilt/liblsl64.so`);
  return lib;
}

function buildTool(): string {
  mkdirSync(TOOL_DIR, { recursive: true });
  // Named by its source's hash: checkouts that share node_modules (git worktrees) may hold
  // different versions of lsltool.c, and one must not run the other's build.
  const hash = createHash('sha256').update(readFileSync(TOOL_SOURCE)).digest('hex').slice(0, 12);
  const tool = path.join(TOOL_DIR, `lsltool-${hash}`);
  if (existsSync(tool)) return tool;
  const building = `${tool}.${process.pid}`;
  execFileSync('gcc', ['-O1', '-o', building, TOOL_SOURCE, '-ldl']);
  renameSync(building, tool);
  return tool;
}

const made = new Map<string, Promise<string>>();
/** `work`'s result, made once per test file under the machine-wide lock. */
function once(key: string, work: () => string): Promise<string> {
  let result = made.get(key);
  if (result === undefined) {
    result = withLock(work);
    made.set(key, result);
  }
  return result;
}

/** One liblsl version's shared object and the test program (see liblslMissing for when it can run). */
export async function liblslOf(version: LiblslVersion): Promise<{ lib: string; tool: string }> {
  const lib = await once(version, version === '1.16' ? build116 : fetch112);
  return { lib, tool: await once('tool', buildTool) };
}

/** liblsl 1.16 (which must be set up: see liblslAvailable) and 1.12 where the machine can load it. */
export async function liblsl(): Promise<Liblsl> {
  const { lib: lib116, tool } = await liblslOf('1.16');
  const lib112 = liblslMissing('1.12') === undefined ? (await liblslOf('1.12')).lib : undefined;
  return { lib116, lib112, tool };
}

export interface LslPorts {
  multicastPort: number;
  basePort: number;
  portRange: number;
}

/** A HOME holding liblsl's config for these ports (and the same file for LSLAPICFG). */
export function liblslEnv(ports: LslPorts, extra = ''): NodeJS.ProcessEnv {
  const home = scratchDir('headsetd-lsl');
  mkdirSync(path.join(home, 'lsl_api'));
  const file = path.join(home, 'lsl_api', 'lsl_api.cfg');
  writeFileSync(
    file,
    `[ports]\nIPv6 = disable\nMulticastPort = ${ports.multicastPort}\nBasePort = ${ports.basePort}\nPortRange = ${ports.portRange}\n[multicast]\nResolveScope = machine\n${extra}`,
  );
  return { ...process.env, HOME: home, LSLAPICFG: file };
}

/** A paced float32 outlet of lsltool (`lsltool LIB pace …`, test/lsl/lsltool.c says each field). */
export interface PacedOutlet {
  name: string;
  /** The source id. */
  source: string;
  channels: number;
  /** The rate the stream declares. */
  rate: number;
  /** The rate the samples are taken at (default: `rate`). */
  actual?: number;
  count: number;
  chunk: number;
  /** `push`: each sample of a chunk stamped with the push's time (OpenBCI GUI's way); `exact`, `due`: lsltool.c. */
  stamps: 'push' | 'exact' | 'due';
  jitterMs?: number;
  /** Samples never pushed. */
  skip?: readonly number[];
  /** The sample where the program stalls `lateMs` (lsltool's STALL). */
  stall?: string;
  lateMs?: number;
  /** label[:unit],… (`-` for no desc). */
  labels: string;
}

/** lsltool's arguments for `outlet`, after the library's path. */
export function pacedOutletArgs(lib: string, outlet: PacedOutlet): string[] {
  const skip = outlet.skip ?? [];
  return [
    lib,
    'pace',
    outlet.name,
    outlet.source,
    String(outlet.channels),
    String(outlet.rate),
    String(outlet.actual ?? outlet.rate),
    String(outlet.count),
    String(outlet.chunk),
    outlet.stamps,
    String(outlet.jitterMs ?? 0),
    skip.length === 0 ? '-' : skip.join(','),
    outlet.stall ?? '-',
    String(outlet.lateMs ?? 0),
    outlet.labels,
  ];
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

  /** Samples printed: corrected timestamp and values (C's `nan`, `inf`, `-inf` read as such). */
  samples(): { timestamp: number; values: number[] }[] {
    return this.lines
      .filter((line) => line.startsWith('S '))
      .map((line) => {
        const [, ts, ...values] = line.split(' ');
        return { timestamp: Number(ts), values: values.map(printedNumber) };
      });
  }

  /**
   * The samples of an inlet without post-processing flags with the clock correction each was
   * printed with: `sent`, the stamp as the outlet sent it (the printed one less the correction);
   * `correction`, liblsl's estimate of the outlet's clock offset; `uncertainty`, the round trip of
   * the probe that estimate came from (NaN where the library tells none: 1.12). For two programs on
   * one clock the true offset is 0, so liblsl's estimate lies within half that round trip of it.
   */
  stamps(): { sent: number; correction: number; uncertainty: number }[] {
    const stamps: { sent: number; correction: number; uncertainty: number }[] = [];
    let correction = Number.NaN;
    let uncertainty = Number.NaN;
    for (const line of this.lines) {
      if (line.startsWith('CORRECTION ')) {
        const [, offset, , rtt] = line.split(' ');
        correction = Number(offset);
        uncertainty = Number(rtt) < 0 ? Number.NaN : Number(rtt);
      } else if (line.startsWith('S ')) {
        stamps.push({ sent: Number(line.split(' ')[1]) - correction, correction, uncertainty });
      }
    }
    return stamps;
  }

  /** Writes a line to the tool's stdin. */
  send(line: string): void {
    this.child.stdin?.write(`${line}\n`);
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}

/** A number as C's printf writes it: `inf` and `-inf` are Infinity, `nan` and `-nan` NaN. */
function printedNumber(text: string): number {
  if (text === 'inf') return Number.POSITIVE_INFINITY;
  if (text === '-inf') return Number.NEGATIVE_INFINITY;
  return Number(text);
}

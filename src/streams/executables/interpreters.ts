/**
 * The interpreters an external executable may be run by, and the few options of each that
 * headsetd passes on. An interpreter option can make the interpreter run code that is not the
 * allowed script (`python3 -cCODE`, `node --eval=CODE`, `node --require=FILE`, `perl -eCODE`,
 * `python3 -W ignore::mod.Cls` imports `mod`), and every interpreter accepts many spellings of its
 * options (attached values, `=` forms, bundles like `-uc`), so a deny-list of dangerous options
 * can always be bypassed: only the exact words listed here, which take no value and change
 * nothing but diagnostics, buffering or isolation, are accepted.
 */
import { statSync } from 'node:fs';
import path from 'node:path';

/** The options each interpreter may be given before its script, as exact words. */
const INTERPRETER_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  // Unbuffered, no .pyc files, optimised, no user site, no PYTHON* variables, isolated.
  python: ['-u', '-B', '-O', '-OO', '-s', '-E', '-I'],
  python3: ['-u', '-B', '-O', '-OO', '-s', '-E', '-I'],
  node: ['--no-warnings', '--no-deprecation', '--trace-warnings', '--trace-uncaught', '--enable-source-maps'],
  nodejs: [
    '--no-warnings',
    '--no-deprecation',
    '--trace-warnings',
    '--trace-uncaught',
    '--enable-source-maps',
  ],
  // errexit, nounset, xtrace.
  bash: ['-e', '-u', '-x'],
  sh: ['-e', '-u', '-x'],
  // Warnings, all warnings, taint checks. (Not -E: for perl it runs code, unlike python's.)
  perl: ['-w', '-W', '-T'],
  ruby: ['-w'],
  Rscript: ['--vanilla'],
};

/** Directories searched when the service's PATH is empty (the same default the children get). */
const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function pathDirs(): string[] {
  const value = process.env.PATH ?? '';
  return (value === '' ? DEFAULT_PATH : value).split(path.delimiter).filter((d) => path.isAbsolute(d));
}

/**
 * The interpreter `program` names, or undefined when it names none: a known interpreter by bare
 * name (found through PATH when the node starts), or by its path inside a directory of PATH
 * (`/usr/bin/python3`). A file that merely carries an interpreter's name elsewhere
 * (`/tmp/python3`) is not one: it would be an arbitrary program.
 */
export function interpreterOf(program: string): string | undefined {
  const name = path.basename(program);
  if (!Object.hasOwn(INTERPRETER_OPTIONS, name)) return undefined;
  if (!program.includes('/')) return program;
  if (!path.isAbsolute(program) || path.normalize(program) !== program) return undefined;
  return pathDirs().includes(path.dirname(program)) && isFile(program) ? name : undefined;
}

/** The options `interpreter` (a name {@link interpreterOf} returned) may be given before its script. */
export function allowedOptions(interpreter: string): readonly string[] {
  return INTERPRETER_OPTIONS[interpreter] ?? [];
}

/** The names of every known interpreter, for messages and documentation. */
export const INTERPRETER_NAMES: readonly string[] = Object.keys(INTERPRETER_OPTIONS);

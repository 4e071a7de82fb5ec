/**
 * Resolves a node's `executable` to a built-in or to an allowed external program
 * (API-NOTES.md §Executables). External programs run only from the allowed directories: a command
 * line naming anything else is refused, so a client of the API cannot run arbitrary programs.
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { HeadsetdError } from '../errors.js';
import { BUILTINS, type BuiltinDescriptor, builtinByAlias, builtinByName } from './builtins.js';
import { splitCommandLine } from './command-line.js';

export type Resolution =
  | { kind: 'builtin'; descriptor: BuiltinDescriptor }
  /** `argv[0]` is the program; the allowed file (program or script) is given as an absolute path. */
  | { kind: 'external'; argv: string[]; file: string };

/** Programs that run a script given as their first non-option argument. */
const INTERPRETERS = new Set([
  'node',
  'nodejs',
  'python',
  'python3',
  'bash',
  'sh',
  'perl',
  'ruby',
  'Rscript',
]);

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function isWithin(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

function realDirs(dirs: readonly string[]): string[] {
  return dirs.flatMap((d) => {
    try {
      return [realpathSync(d)];
    } catch {
      return [];
    }
  });
}

/** The real path of `candidate` if it is a file inside one of `dirs` (symlinks followed, so none can escape). */
function findAllowed(candidate: string, dirs: readonly string[]): string | undefined {
  const tries = path.isAbsolute(candidate) ? [candidate] : dirs.map((d) => path.resolve(d, candidate));
  for (const attempt of tries) {
    if (!isFile(attempt)) continue;
    const real = realpathSync(attempt);
    if (dirs.some((d) => isWithin(real, d))) return real;
  }
  return undefined;
}

/** Interpreter flags that take the program's code itself as the next word. */
const INLINE_CODE_FLAGS = new Set(['-c', '-e', '-E', '--eval', '-p', '--print']);

/** True when `candidate` names an existing file, absolute or relative to one of the directories. */
function existsOutside(candidate: string, dirs: readonly string[]): boolean {
  if (path.isAbsolute(candidate)) return isFile(candidate);
  return dirs.some((d) => isFile(path.resolve(d, candidate))) || isFile(path.resolve(candidate));
}

function onPath(program: string): boolean {
  if (program.includes('/')) return isFile(program);
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .some((d) => d !== '' && isFile(path.join(d, program)));
}

function scriptIndex(argv: readonly string[]): number | undefined {
  const program = path.basename(argv[0] ?? '');
  if (!INTERPRETERS.has(program)) return undefined;
  const index = argv.findIndex((word, i) => i > 0 && !word.startsWith('-'));
  return index === -1 ? undefined : index;
}

function aliasOf(argv: readonly string[]): BuiltinDescriptor | undefined {
  const last = argv[argv.length - 1];
  if (last === undefined) return undefined;
  const base = path.basename(last);
  const stem = base.includes('.') ? base.slice(0, base.lastIndexOf('.')) : base;
  return builtinByAlias(stem);
}

/**
 * Resolves `executable` against the built-ins and the allowed directories.
 * Throws `unknown_executable` (422) when it names nothing, `executable_not_allowed` (403) when it
 * names a program outside the allowed directories, `validation_failed` when the program is not executable.
 */
export function resolveExecutable(executable: string, executablesDirs: readonly string[]): Resolution {
  const trimmed = executable.trim();
  const builtin = builtinByName(trimmed);
  if (builtin !== undefined) return { kind: 'builtin', descriptor: builtin };

  let argv: string[];
  try {
    argv = splitCommandLine(trimmed);
  } catch (error) {
    throw new HeadsetdError(
      'validation_failed',
      `The executable's command line is malformed: ${(error as Error).message}.`,
    );
  }
  const program = argv[0];
  if (program === undefined) {
    throw new HeadsetdError('unknown_executable', 'The executable is empty.');
  }

  const dirs = realDirs(executablesDirs);
  const allowedProgram = findAllowed(program, dirs);
  if (allowedProgram !== undefined) {
    try {
      accessSync(allowedProgram, constants.X_OK);
    } catch {
      throw new HeadsetdError(
        'validation_failed',
        `'${program}' is in the executables directory but is not executable; run chmod +x on it, or start it through its interpreter (for example 'python3 ${program}').`,
      );
    }
    return { kind: 'external', argv: [allowedProgram, ...argv.slice(1)], file: allowedProgram };
  }
  const index = scriptIndex(argv);
  const script = index === undefined ? undefined : argv[index];
  if (index !== undefined && script !== undefined) {
    const allowedScript = findAllowed(script, dirs);
    if (allowedScript !== undefined) {
      const resolved = [...argv];
      resolved[index] = allowedScript;
      return { kind: 'external', argv: resolved, file: allowedScript };
    }
  }

  const alias = aliasOf(argv);
  if (alias !== undefined) return { kind: 'builtin', descriptor: alias };

  if (INTERPRETERS.has(path.basename(program)) && argv.slice(1).some((word) => INLINE_CODE_FLAGS.has(word))) {
    throw new HeadsetdError(
      'executable_not_allowed',
      `'${executable}' runs code given on the command line; put the program in a file in an executables directory (${executablesDirs.join(', ')}) instead.`,
      { executable, allowedDirectories: [...executablesDirs] },
    );
  }
  const named = script ?? program;
  // A name that reaches a file outside the directories ('../x', a symbolic link out, an absolute
  // path, a program on PATH) is refused as not allowed; only a name that reaches nothing is unknown.
  const exists =
    existsOutside(named, dirs) || (script === undefined && !program.includes('/') && onPath(program));
  if (exists) {
    throw new HeadsetdError(
      'executable_not_allowed',
      `'${named}' lies outside the allowed executables directories (${executablesDirs.join(', ')}); copy it into one of them.`,
      { executable, allowedDirectories: [...executablesDirs] },
    );
  }
  throw new HeadsetdError(
    'unknown_executable',
    `'${executable}' is neither a built-in (${BUILTINS.map((b) => b.name).join(', ')}) nor a program in the executables directories (${executablesDirs.join(', ')}).`,
    { executable, builtins: BUILTINS.map((b) => b.name), allowedDirectories: [...executablesDirs] },
  );
}

/**
 * Resolves a node's `executable` to a built-in or to an allowed external program
 * (docs/api.md §Executables, docs/security.md). External programs run only from the allowed
 * directories, directly or by a known interpreter given no code of its own: a command line naming
 * anything else is refused, so a client of the API cannot run arbitrary programs.
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { HeadsetdError } from '../../core/errors.js';
import { BUILTINS, type BuiltinDescriptor, builtinByAlias, builtinByName } from './builtins.js';
import { splitCommandLine } from './command-line.js';
import { allowedOptions, INTERPRETER_NAMES, interpreterOf } from './interpreters.js';
import { isTypeScriptFile } from './typescript-node.js';

export type Resolution =
  | { kind: 'builtin'; descriptor: BuiltinDescriptor }
  /** `argv[0]` is the program; the allowed file (program or script) is given as an absolute path. */
  | { kind: 'external'; argv: string[]; file: string };

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function isWithin(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  // '..x' is a file inside; only '..' itself or a path under it climbs out.
  return (
    relative !== '' &&
    relative !== '..' &&
    !relative.startsWith(`..${path.sep}`) &&
    !path.isAbsolute(relative)
  );
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

/** The built-in a reference command line names by its file's name (`/usr/share/…/Logger.js` → logger). */
function aliasOf(word: string): BuiltinDescriptor | undefined {
  const base = path.basename(word);
  const stem = base.includes('.') ? base.slice(0, base.lastIndexOf('.')) : base;
  return builtinByAlias(stem);
}

function notAllowed(executable: string, dirs: readonly string[], message: string, extra = {}): HeadsetdError {
  return new HeadsetdError('executable_not_allowed', message, {
    executable,
    allowedDirectories: [...dirs],
    ...extra,
  });
}

/**
 * The options before an interpreter's script: each must be an exact word of the interpreter's
 * allow-list (interpreters.ts says why nothing else is safe). Returns the script's index.
 */
function scriptIndexAfterOptions(
  executable: string,
  argv: readonly string[],
  interpreter: string,
  dirs: readonly string[],
): number {
  const allowed = allowedOptions(interpreter);
  let index = 1;
  for (; index < argv.length; index++) {
    const word = argv[index] ?? '';
    if (!word.startsWith('-')) return index;
    if (!allowed.includes(word)) {
      const which = allowed.length === 0 ? 'none' : allowed.join(', ');
      throw notAllowed(
        executable,
        dirs,
        `'${word}' is an option of ${interpreter} that headsetd does not pass: an interpreter is given only its script, so that nothing but the script's own code runs (options allowed before the script: ${which}). Put the code in a file in an executables directory (${dirs.join(', ')}) and name that file; arguments for the script go after it.`,
        { option: word, allowedOptions: [...allowed] },
      );
    }
  }
  throw notAllowed(
    executable,
    dirs,
    `'${executable}' names no script for ${interpreter} to run; name a file in an executables directory (${dirs.join(', ')}).`,
  );
}

/**
 * Resolves `executable` against the built-ins and the allowed directories. An external
 * executable is an allowed file run directly, or an allowed script run by a known interpreter
 * (interpreters.ts) with none of its options but a few harmless ones; the file is replaced by its
 * real path, which starts with '/', so every word after it is an argument of the script and never
 * an option of the interpreter.
 * Throws `unknown_executable` (422) when it names nothing, `executable_not_allowed` (403) when it
 * names a program outside the allowed directories or gives an interpreter an option,
 * `validation_failed` (422) when the program is not executable or the line is malformed.
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
    // A TypeScript node named alone runs on the service's own node, through its transpiler.
    if (isTypeScriptFile(allowedProgram)) {
      return {
        kind: 'external',
        argv: [process.execPath, allowedProgram, ...argv.slice(1)],
        file: allowedProgram,
      };
    }
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

  const interpreter = interpreterOf(program);
  if (interpreter !== undefined) {
    const index = scriptIndexAfterOptions(executable, argv, interpreter, executablesDirs);
    const script = argv[index] ?? '';
    const allowedScript = findAllowed(script, dirs);
    if (allowedScript !== undefined) {
      const resolved = [...argv];
      resolved[index] = allowedScript;
      return { kind: 'external', argv: resolved, file: allowedScript };
    }
    const alias = index === argv.length - 1 ? aliasOf(script) : undefined;
    if (alias !== undefined) return { kind: 'builtin', descriptor: alias };
    if (existsOutside(script, dirs)) {
      throw notAllowed(
        executable,
        executablesDirs,
        `'${script}' lies outside the allowed executables directories (${executablesDirs.join(', ')}); copy it into one of them.`,
      );
    }
  } else {
    const alias = argv.length === 1 ? aliasOf(program) : undefined;
    if (alias !== undefined) return { kind: 'builtin', descriptor: alias };
    // A name that reaches a file outside the directories ('../x', a symbolic link out, an absolute
    // path, a program on PATH) is refused as not allowed; only a name that reaches nothing is unknown.
    if (existsOutside(program, dirs) || (!program.includes('/') && onPath(program))) {
      throw notAllowed(
        executable,
        executablesDirs,
        `'${program}' lies outside the allowed executables directories (${executablesDirs.join(', ')}) and is not a known interpreter (${INTERPRETER_NAMES.join(', ')}) by name or from PATH; copy it into one of them.`,
      );
    }
  }
  throw new HeadsetdError(
    'unknown_executable',
    `'${executable}' is neither a built-in (${BUILTINS.map((b) => b.name).join(', ')}) nor a program in the executables directories (${executablesDirs.join(', ')}).`,
    { executable, builtins: BUILTINS.map((b) => b.name), allowedDirectories: [...executablesDirs] },
  );
}

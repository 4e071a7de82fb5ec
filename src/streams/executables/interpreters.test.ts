/**
 * Regression: the allow-list checked only the first word without a leading '-' as the script and
 * refused the exact words -c, -e, --eval and -p, so attached forms (`python3 "-cCODE" script.py`,
 * `node --eval=CODE script.mjs`, `node --require=../x.cjs script.mjs`, `perl -eCODE script.py`) ran
 * their code as the service's user. Now an interpreter is given its script and nothing else but a
 * few harmless options, and the arguments after the script reach the script, never the interpreter.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeadsetdError } from '../../core/errors.js';
import { allowedOptions, interpreterOf } from './interpreters.js';
import { resolveExecutable } from './registry.js';
import { httpStatus } from '../../platform/http/statuses.js';
import { scratchDir } from '../../../test/support/scratch.js';

let root: string;
let allowed: string;
let outside: string;

/** Each prints its arguments, one per line, and nothing else. */
const ECHO_SCRIPTS: Record<string, string> = {
  'echo.py': 'import sys\nfor a in sys.argv[1:]:\n    print(a)\n',
  'echo.mjs': 'for (const a of process.argv.slice(2)) console.log(a);\n',
  'echo.pl': 'print "$_\\n" for @ARGV;\n',
  'echo.sh': 'for a in "$@"; do printf "%s\\n" "$a"; done\n',
};

beforeAll(() => {
  root = realpathSync(scratchDir('headsetd-interpreters'));
  allowed = path.join(root, 'executables');
  outside = path.join(root, 'elsewhere');
  mkdirSync(allowed);
  mkdirSync(outside);
  writeFileSync(path.join(allowed, 'moving_average.py'), 'print(1)\n');
  writeFileSync(path.join(allowed, 'moving-average.mjs'), 'console.log(1)\n');
  writeFileSync(path.join(allowed, 'run.sh'), '#!/bin/sh\n');
  chmodSync(path.join(allowed, 'run.sh'), 0o755);
  writeFileSync(path.join(allowed, '..dots.py'), 'print(1)\n');
  for (const [name, text] of Object.entries(ECHO_SCRIPTS)) writeFileSync(path.join(allowed, name), text);
  writeFileSync(path.join(outside, 'outside.cjs'), "require('fs').writeFileSync('pwned', '')\n");
  // A program that merely carries an interpreter's name, outside PATH.
  writeFileSync(path.join(outside, 'python3'), '#!/bin/sh\ntouch pwned\n');
  chmodSync(path.join(outside, 'python3'), 0o755);
  symlinkSync(path.join(outside, 'outside.cjs'), path.join(allowed, 'escape.cjs'));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

function refusal(executable: string): HeadsetdError {
  try {
    resolveExecutable(executable, [allowed]);
  } catch (error) {
    if (error instanceof HeadsetdError) return error;
    throw error;
  }
  throw new Error(`resolved: ${executable}`);
}

/** Quotes a word for splitCommandLine (POSIX single quotes). */
function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

describe('interpreter options', () => {
  it.each([
    [
      `python3 "-cimport os; os.system('id > pwned')" moving_average.py`,
      "-cimport os; os.system('id > pwned')",
    ],
    [
      "node \"--eval=require('fs').writeFileSync('pwned', '')\" moving-average.mjs",
      "--eval=require('fs').writeFileSync('pwned', '')",
    ],
    ['node --require=../outside.cjs moving-average.mjs', '--require=../outside.cjs'],
    [`perl "-eopen(F,'>pwned')" moving_average.py`, "-eopen(F,'>pwned')"],
    ['python3 -uc "print(1)" moving_average.py', '-uc'],
    ['python3 -Wignore::os.X moving_average.py', '-Wignore::os.X'],
    ['python3 -m http.server', '-m'],
    ['node --import=data:text/javascript,1 moving-average.mjs', '--import=data:text/javascript,1'],
    ['node -r ../outside.cjs moving-average.mjs', '-r'],
    ['node --loader ../outside.cjs moving-average.mjs', '--loader'],
    ['sh -c "touch pwned" run.sh', '-c'],
    ['bash --rcfile ../outside.cjs run.sh', '--rcfile'],
    ['perl -E "say 1" moving_average.py', '-E'],
    ['python3 -- moving_average.py', '--'],
    ['python3 - moving_average.py', '-'],
  ])('refuses %s (attached or other interpreter option) with 403', (line, option) => {
    const error = refusal(line);
    expect(error.code).toBe('executable_not_allowed');
    expect(httpStatus(error)).toBe(403);
    expect(error.details).toMatchObject({ option });
    expect(error.message).toContain('in a file');
  });

  it('refuses an interpreter with options and no script', () => {
    for (const line of ['python3', 'python3 -u', 'node --no-warnings']) {
      expect(refusal(line).code, line).toBe('executable_not_allowed');
    }
  });

  it('accepts the exact harmless options before the script', () => {
    const script = path.join(allowed, 'moving_average.py');
    expect(resolveExecutable('python3 -u -B moving_average.py', [allowed])).toEqual({
      kind: 'external',
      argv: ['python3', '-u', '-B', script],
      file: script,
    });
    expect(resolveExecutable('node --no-warnings moving-average.mjs', [allowed])).toMatchObject({
      argv: ['node', '--no-warnings', path.join(allowed, 'moving-average.mjs')],
    });
  });

  it('refuses a program named like an interpreter outside PATH (/elsewhere/python3)', () => {
    expect(interpreterOf(path.join(outside, 'python3'))).toBeUndefined();
    expect(refusal(`${path.join(outside, 'python3')} moving_average.py`).code).toBe('executable_not_allowed');
    expect(interpreterOf('python3')).toBe('python3');
    expect(interpreterOf('/usr/bin/../bin/python3')).toBeUndefined();
  });

  it('refuses a script reached by a symlink or .. out of the directory', () => {
    for (const line of [
      'node escape.cjs',
      'node ../elsewhere/outside.cjs',
      `node ${allowed}/../elsewhere/outside.cjs`,
    ]) {
      expect(refusal(line).code, line).toBe('executable_not_allowed');
    }
  });

  it('a file whose name starts with two dots is inside the directory, not above it', () => {
    expect(resolveExecutable('python3 ..dots.py', [allowed])).toMatchObject({
      file: path.join(allowed, '..dots.py'),
    });
  });
});

describe('arguments after the script', () => {
  const hostile = [
    "-cimport os; os.system('touch pwned')",
    '-c',
    "open('pwned', 'w')",
    "--eval=require('fs').writeFileSync('pwned', '')",
    '--require=../elsewhere/outside.cjs',
    "-eopen(F,'>pwned')",
    '-',
    '--',
  ];

  it.each([
    ['python3', 'echo.py'],
    ['node', 'echo.mjs'],
    ['perl', 'echo.pl'],
    ['sh', 'echo.sh'],
    ['bash', 'echo.sh'],
  ])('reach the script, not the interpreter (%s)', (interpreter, script) => {
    const line = [interpreter, script, ...hostile].map(quote).join(' ');
    const resolution = resolveExecutable(line, [allowed]);
    if (resolution.kind !== 'external') throw new Error('not external');
    const [program = '', ...args] = resolution.argv;
    const run = spawnSync(program, args, { cwd: allowed, encoding: 'utf8', env: { PATH: process.env.PATH } });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(`${hostile.join('\n')}\n`);
    expect(readdirSync(allowed)).not.toContain('pwned');
    expect(existsSync(path.join(allowed, 'pwned'))).toBe(false);
  });
});

describe('any command line (property)', () => {
  const interpreters = [
    'python3',
    'python',
    'node',
    'nodejs',
    'perl',
    'ruby',
    'bash',
    'sh',
    'Rscript',
    '/usr/bin/python3',
    '/usr/bin/env',
    'env',
  ];
  const dangerous = [
    '-c',
    '-cimport os',
    '-e',
    '-eprint 1',
    '-E',
    '--eval',
    '--eval=1',
    '-p',
    '--print=1',
    '-r',
    '--require=../elsewhere/outside.cjs',
    '--import=x',
    '--loader=x',
    '-m',
    '-mhttp.server',
    '-W',
    '-Wignore::os.X',
    '-X',
    '-uc',
    '--',
    '-',
  ];
  const harmless = ['-u', '-B', '-I', '-w', '-x', '-e', '--vanilla', '--no-warnings'];
  const scripts = [
    'moving_average.py',
    'moving-average.mjs',
    'run.sh',
    'escape.cjs',
    '../elsewhere/outside.cjs',
    'SignalGenerator.js',
    'missing.py',
  ];
  /** An option word: a known one, a known one with anything attached, or anything after a dash. */
  const option = fc.oneof(
    fc.constantFrom(...dangerous, ...harmless),
    fc
      .tuple(fc.constantFrom(...dangerous, ...harmless), fc.string({ minLength: 1, maxLength: 6 }))
      .map(([o, s]) => o + s),
    fc.string({ maxLength: 8 }).map((s) => `-${s}`),
  );
  const word = fc.oneof(fc.string({ maxLength: 8 }), option);
  const line = fc.record({
    program: fc.oneof(
      fc.constantFrom(...interpreters),
      fc.constant('python3').map((name) => path.join(outside, name)),
    ),
    options: fc.array(option, { maxLength: 3 }),
    script: fc.oneof(
      fc.constantFrom(...scripts),
      fc.constantFrom(...scripts).map((s) => path.join(allowed, s)),
    ),
    args: fc.array(word, { maxLength: 3 }),
  });

  it('resolves only to an allowed file, run directly or by a known interpreter given allowed options only', () => {
    fc.assert(
      fc.property(line, ({ program, options, script, args }) => {
        const words = [program, ...options, script, ...args];
        let resolution;
        try {
          resolution = resolveExecutable(words.map(quote).join(' '), [allowed]);
        } catch (error) {
          expect(error).toBeInstanceOf(HeadsetdError);
          expect(['executable_not_allowed', 'unknown_executable', 'validation_failed']).toContain(
            (error as HeadsetdError).code,
          );
          return;
        }
        if (resolution.kind === 'builtin') {
          expect(options.every((o) => allowedOptions(interpreterOf(program) ?? '').includes(o))).toBe(true);
          return;
        }
        const { argv, file } = resolution;
        expect(realpathSync(file)).toBe(file);
        expect(path.dirname(file)).toBe(allowed);
        const interpreter = interpreterOf(argv[0] ?? '');
        expect(interpreter).toBeDefined();
        const at = argv.indexOf(file);
        const given = argv.slice(1, at);
        // Nothing before the script but the interpreter's allow-listed words.
        expect(given.every((o) => allowedOptions(interpreter ?? '').includes(o))).toBe(true);
        expect(given).toEqual(options);
        // The script's arguments are passed as given, after the script.
        expect(argv.slice(at + 1)).toEqual(args);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses every mutation that puts an unlisted word before the script', () => {
    const base: fc.Arbitrary<string[]> = fc.constantFrom(
      ['python3', '-u', 'moving_average.py'],
      ['node', 'moving-average.mjs'],
      ['perl', 'moving_average.py'],
      ['sh', '-e', 'run.sh'],
    );
    fc.assert(
      fc.property(base, option, fc.nat(), (words, extra, where) => {
        const interpreter = interpreterOf(words[0] ?? '') ?? '';
        fc.pre(!allowedOptions(interpreter).includes(extra));
        const at = 1 + (where % (words.length - 1));
        const mutated = [...words.slice(0, at), extra, ...words.slice(at)];
        expect(refusal(mutated.map(quote).join(' ')).code).toBe('executable_not_allowed');
        // Attached to an option already there, the word is refused too.
        if (words[1]?.startsWith('-')) {
          const attached = [words[0] ?? '', `${words[1]}${extra.slice(1)}`, ...words.slice(2)];
          const joined = attached[1] ?? '';
          if (!allowedOptions(interpreter).includes(joined))
            expect(refusal(attached.map(quote).join(' ')).code).toBe('executable_not_allowed');
        }
      }),
      { numRuns: 300 },
    );
  });
});

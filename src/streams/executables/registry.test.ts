/**
 * resolveExecutable (docs/api.md §Executables): built-ins by name and alias, external programs
 * and scripts only inside the allowed directories (symlinks followed), the rest refused.
 */
import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeadsetdError } from '../../core/errors.js';
import { BUILTINS } from './builtins.js';
import { resolveExecutable } from './registry.js';
import { httpStatus } from '../../platform/http/statuses.js';
import { scratchDir } from '../../../test/support/scratch.js';

let root: string;
let allowed: string;
let outside: string;

beforeAll(() => {
  root = scratchDir('headsetd-registry');
  allowed = path.join(root, 'executables');
  outside = path.join(root, 'elsewhere');
  mkdirSync(allowed);
  mkdirSync(outside);
  for (const [dir, name, mode] of [
    [allowed, 'run.sh', 0o755],
    [allowed, 'plain.sh', 0o644],
    [allowed, 'node.py', 0o644],
    [outside, 'evil.sh', 0o755],
    [outside, 'evil.py', 0o644],
  ] as const) {
    writeFileSync(path.join(dir, name), '#!/bin/sh\n');
    chmodSync(path.join(dir, name), mode);
  }
  symlinkSync(path.join(outside, 'evil.sh'), path.join(allowed, 'escape.sh'));
  symlinkSync(path.join(allowed, 'run.sh'), path.join(allowed, 'alias.sh'));
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

describe('resolveExecutable', () => {
  it('names every built-in, and every alias of one as the file name of a command line', () => {
    for (const builtin of BUILTINS) {
      expect(resolveExecutable(builtin.name, [])).toEqual({ kind: 'builtin', descriptor: builtin });
      expect(resolveExecutable(` ${builtin.name} `, [])).toMatchObject({ kind: 'builtin' });
      for (const alias of builtin.aliases) {
        for (const line of [
          `node /usr/share/engines/worker-scripts/${alias}.js`,
          `python3 ${alias}.py`,
          alias,
        ]) {
          expect(resolveExecutable(line, [allowed]), line).toEqual({ kind: 'builtin', descriptor: builtin });
        }
      }
    }
  });

  it('resolves a program of the allowed directory by name or by path, to its real path', () => {
    const real = path.join(allowed, 'run.sh');
    expect(resolveExecutable('run.sh --x 1', [allowed])).toEqual({
      kind: 'external',
      argv: [real, '--x', '1'],
      file: real,
    });
    expect(resolveExecutable(real, [allowed])).toEqual({ kind: 'external', argv: [real], file: real });
    // A symlink that stays inside resolves to its target.
    expect(resolveExecutable('alias.sh', [allowed])).toMatchObject({ file: real });
  });

  it('resolves a script of the allowed directory behind an interpreter and its options', () => {
    const real = path.join(allowed, 'node.py');
    expect(resolveExecutable('python3 -u node.py --rate 250', [allowed])).toEqual({
      kind: 'external',
      argv: ['python3', '-u', real, '--rate', '250'],
      file: real,
    });
  });

  it('refuses programs and scripts outside the allowed directories with 403', () => {
    for (const line of [
      path.join(outside, 'evil.sh'),
      `python3 ${path.join(outside, 'evil.py')}`,
      path.join(allowed, '..', 'elsewhere', 'evil.sh'),
      'ls',
      'ls -l /',
    ]) {
      const error = refusal(line);
      expect(error.code, line).toBe('executable_not_allowed');
      expect(httpStatus(error)).toBe(403);
    }
    // Refused too, though classed as naming nothing: a relative path climbing out of the directory,
    // and an interpreter given code instead of a script file.
    for (const line of ['../elsewhere/evil.sh', 'sh -c true', 'python3 -c "print(1)"']) {
      expect(['executable_not_allowed', 'unknown_executable'], line).toContain(refusal(line).code);
    }
  });

  it('never lets a symlink lead out of the allowed directory', () => {
    const error = refusal('escape.sh');
    expect(['executable_not_allowed', 'unknown_executable']).toContain(error.code);
  });

  it('refuses a file of the allowed directory that is not executable, with 422', () => {
    const error = refusal('plain.sh');
    expect(error.code).toBe('validation_failed');
    expect(httpStatus(error)).toBe(422);
  });

  it('refuses what names nothing with unknown_executable, listing the built-ins', () => {
    const error = refusal('no-such-program --flag');
    expect(error.code).toBe('unknown_executable');
    expect(error.details).toMatchObject({ builtins: BUILTINS.map((b) => b.name) });
    expect(refusal('').code).toBe('unknown_executable');
  });

  it('a missing allowed directory allows nothing and breaks nothing', () => {
    expect(() => resolveExecutable('run.sh', [path.join(root, 'missing')])).toThrow(HeadsetdError);
    expect(resolveExecutable('logger', [path.join(root, 'missing')])).toMatchObject({ kind: 'builtin' });
  });
});

/**
 * splitCommandLine: POSIX-shell word splitting and quoting, nothing more (no expansion), since
 * external executables are never run through a shell.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitCommandLine } from './command-line.js';

describe('splitCommandLine', () => {
  it.each([
    ['node script.js', ['node', 'script.js']],
    ['  node   script.js  ', ['node', 'script.js']],
    ['a\tb\nc', ['a', 'b', 'c']],
    ['', []],
    ['   ', []],
    ["'two words' three", ['two words', 'three']],
    ['"two words" three', ['two words', 'three']],
    ['pre"mid dle"post', ['premid dlepost']],
    ['a\'b\'"c"d', ['abcd']],
    ['""', ['']],
    ["'' x", ['', 'x']],
    ['a\\ b', ['a b']],
    ['a\\\\b', ['a\\b']],
    ['\\"quoted\\"', ['"quoted"']],
    ["'single \\ keeps \\n backslashes'", ['single \\ keeps \\n backslashes']],
    ['\'no "escape" inside\'', ['no "escape" inside']],
    ['"a \\" b"', ['a " b']],
    ['"a \\\\ b"', ['a \\ b']],
    ['"keeps \\n and \\x"', ['keeps \\n and \\x']],
    ['"dollar \\$HOME and tick \\`"', ['dollar $HOME and tick `']],
    ['$HOME *.js | wc > out', ['$HOME', '*.js', '|', 'wc', '>', 'out']],
    ["python3 '/data/my nodes/run.py' --rate=250", ['python3', '/data/my nodes/run.py', '--rate=250']],
  ])('%j → %j', (line, words) => {
    expect(splitCommandLine(line)).toEqual(words);
  });

  it.each([
    ['"unclosed', 'a double quote is not closed'],
    ["'unclosed", 'a single quote is not closed'],
    ['a "b', 'a double quote is not closed'],
    ['trailing\\', 'it ends with a lone backslash'],
  ])('%j is refused: %s', (line, message) => {
    expect(() => splitCommandLine(line)).toThrow(message);
  });

  it('backslash-newline continues the line, as in a shell (regression: it kept a newline)', () => {
    expect(splitCommandLine('python3 \\\n  node.py')).toEqual(['python3', 'node.py']);
    expect(splitCommandLine('ab\\\ncd')).toEqual(['abcd']);
  });

  it('single-quoting every word round-trips any words without single quotes', () => {
    const word = fc.string({ minLength: 0, maxLength: 12 }).filter((w) => !w.includes("'"));
    fc.assert(
      fc.property(fc.array(word, { maxLength: 6 }), (words) => {
        const line = words.map((w) => `'${w}'`).join(' ');
        expect(splitCommandLine(line)).toEqual(words);
      }),
    );
  });

  it('backslash-escaping every character round-trips any non-empty words', () => {
    // Backslash-newline is a line continuation, not an escaped newline (see below).
    const word = fc.string({ minLength: 1, maxLength: 12 }).filter((w) => !w.includes('\n'));
    fc.assert(
      fc.property(fc.array(word, { maxLength: 6 }), (words) => {
        const line = words.map((w) => w.replace(/[\s\S]/g, (c) => `\\${c}`)).join(' ');
        expect(splitCommandLine(line)).toEqual(words);
      }),
    );
  });
});

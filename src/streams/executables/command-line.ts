/**
 * Splits a command line into words the way a POSIX shell would for quoting (single quotes, double
 * quotes, backslash escapes), and nothing more: no variables, globs, pipes or redirections, because
 * external executables are never run through a shell.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line.charAt(i);
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      else word += ch;
      continue;
    }
    if (quote === '"') {
      if (ch === '"') quote = undefined;
      else if (ch === '\\' && i + 1 < line.length && '"\\$`'.includes(line.charAt(i + 1)))
        word += line.charAt(++i);
      else word += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (ch === '\\') {
      if (i + 1 >= line.length) throw new Error('it ends with a lone backslash');
      const next = line.charAt(++i);
      // Backslash-newline continues the line, as in a shell: both vanish.
      if (next !== '\n') {
        word += next;
        inWord = true;
      }
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (quote !== undefined) throw new Error(`a ${quote === '"' ? 'double' : 'single'} quote is not closed`);
  if (inWord) words.push(word);
  return words;
}

/**
 * A compiler host that parses each file it reads from disk once per set of compiler options, for
 * the tests that build several TypeScript programs over src/ (each reads most of src/ and the
 * language's and Node's types). The compiler shares a parsed file between programs of the same
 * options, as its language service does; each program still binds and checks with a checker of its
 * own. The files are read once per worker: nothing a test runs writes them.
 */
import ts from 'typescript';

const parsedByOptions = new Map<string, Map<string, ts.SourceFile | undefined>>();

export function parsedOnceHost(options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const key = JSON.stringify(options);
  let parsed = parsedByOptions.get(key);
  if (parsed === undefined) {
    parsed = new Map();
    parsedByOptions.set(key, parsed);
  }
  const files = parsed;
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) => {
    if (!files.has(name)) files.set(name, read(name, language, ...rest));
    return files.get(name);
  };
  return host;
}

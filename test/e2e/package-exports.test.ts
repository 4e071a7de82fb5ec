/**
 * The package's entry points, as a program that depends on headsetd imports them (from dist/,
 * which `npm test` builds first): the library entry and the custom-node SDK. The import runs in a
 * plain Node process, as a dependent program's would: not through the test runner's module
 * loader, which transformed each of dist/'s modules first (12 s of CPU for the library alone).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The names `specifier` exports, imported by name from a module in the package's root. */
async function exportsOf(specifier: string): Promise<string[]> {
  const program = `const m = await import(${JSON.stringify(specifier)}); console.log(JSON.stringify(Object.keys(m)));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', program], {
    cwd: ROOT,
  });
  return JSON.parse(stdout) as string[];
}

test('headsetd exports the server, settings, errors and devices', async () => {
  const library = await exportsOf('headsetd');
  for (const name of [
    'startServer',
    'loadSettings',
    'HeadsetdError',
    'createSimulatedHeadset',
    'createReplayHeadset',
    'frameToJson',
  ]) {
    expect(library, name).toContain(name);
  }
});

test('headsetd/sdk exports what a custom node needs', async () => {
  const sdk = await exportsOf('headsetd/sdk');
  for (const name of ['run', 'send', 'config', 'frameLike']) expect(sdk, name).toContain(name);
});

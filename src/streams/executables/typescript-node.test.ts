import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test } from 'vitest';
import { SDK_LOCATIONS } from '../runtime/external/child-env.js';
import { isTypeScriptFile, transpileTypeScriptNode } from './typescript-node.js';
import { scratchDir } from '../../../test/support/scratch.js';

function scriptDir(): { dir: string; dataDir: string } {
  return {
    dir: scratchDir('headsetd-tsnode'),
    dataDir: scratchDir('headsetd-tsnode-data'),
  };
}

test('.ts and .mts scripts are transpiled, declaration files and JavaScript are not', () => {
  expect(isTypeScriptFile('/x/gain.ts')).toBe(true);
  expect(isTypeScriptFile('/x/gain.mts')).toBe(true);
  expect(isTypeScriptFile('/x/gain.d.ts')).toBe(false);
  expect(isTypeScriptFile('/x/gain.mjs')).toBe(false);
});

test('types are erased, headsetd/sdk becomes the service SDK, a JavaScript import beside the script its URL', async () => {
  const { dir, dataDir } = scriptDir();
  const script = path.join(dir, 'node.ts');
  writeFileSync(
    script,
    "import { run, type Send } from 'headsetd/sdk';\nimport { helper } from './helper.mjs';\nimport { readFileSync } from 'node:fs';\nconst send: Send | undefined = undefined;\nrun({});\nconsole.error(helper, readFileSync, send, import.meta.url);\n",
  );
  // A tsconfig.json beside it is not read: its error would otherwise fail the transpile.
  writeFileSync(path.join(dir, 'tsconfig.json'), '{ not json');
  const output = await transpileTypeScriptNode(script, dataDir);
  const code = readFileSync(output, 'utf8');
  expect(code).toContain(`from ${JSON.stringify(SDK_LOCATIONS.javascript)}`);
  expect(code).toContain(`from ${JSON.stringify(pathToFileURL(path.join(dir, 'helper.mjs')).href)}`);
  expect(code).toContain('from "node:fs"');
  expect(code).toContain(JSON.stringify(pathToFileURL(script).href));
  expect(code).not.toContain(': Send');
});

test('the cache is keyed by the text: the same text is not transpiled again, an edit is', async () => {
  const { dir, dataDir } = scriptDir();
  const script = path.join(dir, 'node.ts');
  writeFileSync(script, 'const a: number = 1;\nconsole.error(a);\n');
  const first = await transpileTypeScriptNode(script, dataDir);
  const written = statSync(first).mtimeMs;
  expect(await transpileTypeScriptNode(script, dataDir)).toBe(first);
  expect(statSync(first).mtimeMs).toBe(written);
  writeFileSync(script, 'const a: number = 2;\nconsole.error(a);\n');
  const second = await transpileTypeScriptNode(script, dataDir);
  expect(second).not.toBe(first);
  expect(readFileSync(second, 'utf8')).toContain('a = 2');
});

test('a TypeScript import is refused with the reason: a node is one file', async () => {
  const { dir, dataDir } = scriptDir();
  const script = path.join(dir, 'node.ts');
  writeFileSync(script, "import { x } from './other.ts';\nconsole.error(x);\n");
  await expect(transpileTypeScriptNode(script, dataDir)).rejects.toThrow(
    `${script}:1:19 could not be transpiled: './other.ts' cannot be imported: a TypeScript node is one file`,
  );
});

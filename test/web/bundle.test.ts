/**
 * The dashboard shares the service's answer types (web/src/api-types.ts) as types only: its
 * bundle takes no module of the service's src/, only web/src and the browser packages.
 */
import path from 'node:path';
import * as esbuild from 'esbuild';
import { expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

it('bundles no module of the service into the dashboard', async () => {
  const result = await esbuild.build({
    entryPoints: [path.join(ROOT, 'web', 'src', 'main.tsx')],
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    logLevel: 'silent',
    absWorkingDir: ROOT,
  });
  const inputs = Object.keys(result.metafile.inputs);
  expect(inputs).toContain('web/src/main.tsx');
  expect(inputs.filter((input) => input.startsWith('src/'))).toEqual([]);
});

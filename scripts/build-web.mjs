/**
 * Builds the dashboard (web/, docs/dashboard.md) into dist/web/: web/src/main.tsx and what it
 * imports (Preact, CodeMirror, yaml) bundled by esbuild into one app.js, minified, for browsers of
 * the last few years; web/app.css and web/index.html copied beside it. The service serves these
 * three files (src/api/dashboard.ts); nothing is loaded from the network at run time.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'dist', 'web');
mkdirSync(out, { recursive: true });

await esbuild.build({
  entryPoints: [path.join(root, 'web', 'src', 'main.tsx')],
  outfile: path.join(out, 'app.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome111', 'firefox115', 'safari16.4'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: true,
  legalComments: 'eof',
  logLevel: 'warning',
});
copyFileSync(path.join(root, 'web', 'app.css'), path.join(out, 'app.css'));
copyFileSync(path.join(root, 'web', 'index.html'), path.join(out, 'index.html'));

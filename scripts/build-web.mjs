/**
 * Builds the dashboard (web/, docs/dashboard.md) into dist/web/: web/src/main.tsx and what it
 * imports (Preact, CodeMirror, yaml) bundled by esbuild into one app.js, minified, for browsers of
 * the last few years; web/app.css, web/index.html and web/favicon.svg copied beside it. The service serves these
 * files (src/api/dashboard.ts); nothing is loaded from the network at run time. The licences
 * of the packages bundled are gathered into dist/web/THIRD-PARTY-LICENSES.txt, which ships with them.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'dist', 'web');
mkdirSync(out, { recursive: true });

const result = await esbuild.build({
  metafile: true,
  entryPoints: [path.join(root, 'web', 'src', 'main.tsx')],
  outfile: path.join(out, 'app.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome111', 'firefox115', 'safari16.4'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
});
copyFileSync(path.join(root, 'web', 'app.css'), path.join(out, 'app.css'));
copyFileSync(path.join(root, 'web', 'index.html'), path.join(out, 'index.html'));
copyFileSync(path.join(root, 'web', 'favicon.svg'), path.join(out, 'favicon.svg'));

/** The packages of node_modules the bundle took code from, each with its licence text. */
const packages = new Set();
for (const input of Object.keys(result.metafile.inputs)) {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
  if (match !== null) packages.add(match[1]);
}
const notices = [...packages].sort().map((name) => {
  const dir = path.join(root, 'node_modules', name);
  const { version, license } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const file = readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
  const text = file !== undefined && existsSync(path.join(dir, file)) ? readFileSync(path.join(dir, file), 'utf8').trim() : license;
  return `${name} ${version} (${license})\n\n${text}\n`;
});
writeFileSync(path.join(out, 'THIRD-PARTY-LICENSES.txt'), `${notices.join(`\n${'-'.repeat(72)}\n\n`)}`);

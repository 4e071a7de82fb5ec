/**
 * The layers of src/, bottom first: the one table that lint enforces (scripts/eslint-layers.mjs)
 * and docs/architecture.md draws (`node scripts/layers.mjs` prints the picture).
 *
 * A module may import its own folder and any folder of a lower layer; never a folder of its own
 * layer or of a higher one, so no two folders can import each other. The files directly in src/
 * (the composer: server.ts, cli.ts, config.ts, ...) may import everything and nothing imports them.
 * Tests (`*.test.ts`) are not modules of the service: they may import any layer.
 */

import { argv, stdout } from 'node:process';
import { pathToFileURL } from 'node:url';

/** @typedef {{ name: string, folders: string[], holds: string }} Layer */

/** @type {readonly Layer[]} */
export const LAYERS = [
  {
    name: 'vocabulary',
    folders: ['core'],
    holds: 'frames and their codecs, node and port types, electrodes, stream model, YAML, node protocol',
  },
  {
    name: 'libraries',
    folders: ['dsp', 'formats', 'sdk', 'headmap'],
    holds: 'filters, EDF/BDF/CSV and units, the node SDK, the head map',
  },
  {
    name: 'protocols',
    folders: ['lsl'],
    holds: 'the Lab Streaming Layer protocol and the one LSL reader',
  },
  { name: 'catalog', folders: ['errors'], holds: 'the error catalog every answer uses' },
  {
    name: 'infrastructure',
    folders: ['security', 'http', 'store', 'schemas', 'metrics', 'jobs'],
    holds: 'socket rules and token, HTTP statuses, SQLite and its tables, schemas, metrics, jobs',
  },
  {
    name: 'data plane',
    folders: ['runtime', 'recordings'],
    holds: 'worker threads, graphs, pipes, external processes; recordings on disk',
  },
  { name: 'executables', folders: ['executables'], holds: 'the built-ins and the worker entry that plugs them in' },
  {
    name: 'domain',
    folders: ['streams', 'device'],
    holds: 'stream lifecycle and store; the headset (simulated, replay)',
  },
  {
    name: 'device services',
    folders: ['settings', 'sources'],
    holds: 'GET/PATCH /system/config: schema, defaults, merge patch; the headset as the frame source',
  },
  { name: 'events', folders: ['events'], holds: 'the hub of live events' },
  {
    name: 'services',
    folders: ['guides', 'quick-streams'],
    holds: 'guide sessions, optimiser, schedules; quick EEG streams',
  },
  {
    name: 'http',
    folders: ['api', 'client'],
    holds: 'routes, schemas, HTTP mapping only; the command-line client of the API',
  },
];

/** The composer: the files directly in src/. */
export const COMPOSER = 'src/*.ts';

/** Layer index of a folder of src/, or undefined for a folder the table does not know. */
export function layerOf(folder) {
  const index = LAYERS.findIndex((layer) => layer.folders.includes(folder));
  return index < 0 ? undefined : index;
}

/**
 * Whether a module in folder `from` may import one in folder `to` ('' is the composer, src/ itself).
 * Returns undefined when allowed, else the reason for a person.
 */
export function refusal(from, to) {
  if (from === to || from === '') return undefined;
  if (to === '') return `src/${from}/ may not import the composer (the files directly in src/): it wires the layers, nothing imports it`;
  const a = layerOf(from);
  const b = layerOf(to);
  if (a === undefined) return `src/${from}/ is in no layer: add it to LAYERS in scripts/layers.mjs`;
  if (b === undefined) return `src/${to}/ is in no layer: add it to LAYERS in scripts/layers.mjs`;
  if (b < a) return undefined;
  if (b === a)
    return `src/${from}/ and src/${to}/ are both in the ${LAYERS[a].name} layer: neither may import the other (scripts/layers.mjs)`;
  return `src/${from}/ (${LAYERS[a].name}) may not import src/${to}/ (${LAYERS[b].name}), a higher layer (scripts/layers.mjs)`;
}

/**
 * Folders whose sub-folders are apart: a module in one sub-folder (src/api/guides/) may not import
 * a sibling sub-folder (src/api/system/); what two of them share lives in the folder itself
 * (src/api/*.ts), which any of its sub-folders may import.
 */
export const SPLIT_FOLDERS = ['api'];

/**
 * Whether a module at `from` may import one at `to` inside the same folder of src/ (both paths
 * relative to src/, '/'-separated). Returns undefined when allowed, else the reason for a person.
 */
export function siblingRefusal(from, to) {
  const [top, sub, ...rest] = from.split('/');
  const [toTop, toSub, ...toRest] = to.split('/');
  if (top !== toTop || !SPLIT_FOLDERS.includes(top)) return undefined;
  if (rest.length === 0 || toRest.length === 0 || sub === toSub) return undefined;
  return `src/${top}/${sub}/ may not import src/${top}/${toSub}/, a sibling sub-folder: move what both use into src/${top}/ itself (scripts/layers.mjs)`;
}

/**
 * The dashboard (web/) is a program of its own, bundled for the browser: it imports its own
 * files and npm packages, and from the service only types (`import type`) of its API in the
 * folders and schema files below; never a value, never a Node.js built-in.
 */
export const WEB_TYPE_SOURCES = ['src/schemas/', 'src/core/', 'src/api/system/schemas.', 'src/api/job-shapes.'];

/** Whether a module of web/ may import `to` (relative to the repository; `typeOnly` for `import type`). */
export function webRefusal(to, typeOnly) {
  if (to.startsWith('node:')) return `web/ runs in the browser: it may not import the Node.js built-in ${to}`;
  if (to.startsWith('web/')) return undefined;
  const typesOnly = WEB_TYPE_SOURCES.some((source) => to.startsWith(source));
  if (typesOnly && typeOnly) return undefined;
  if (typesOnly)
    return `web/ may import only types from ${to} (write \`import type\`): the dashboard bundles no code of the service`;
  return `web/ may not import ${to}: the dashboard imports its own files, npm packages and, type-only, the API's types in ${WEB_TYPE_SOURCES.map((f) => (f.endsWith('/') ? f : `${f}ts`)).join(', ')} (scripts/layers.mjs)`;
}

/** The picture docs/architecture.md shows, top layer first. */
export function picture() {
  const width = Math.max(...LAYERS.map((layer) => layer.folders.map((f) => `${f}/`).join('  ').length));
  const lines = [`${'src/*.ts'.padEnd(width)}   the composer: server.ts wires every layer; cli.ts, config.ts`, '   │'];
  for (let i = LAYERS.length - 1; i >= 0; i--) {
    const layer = LAYERS[i];
    lines.push(`${layer.folders.map((f) => `${f}/`).join('  ').padEnd(width)}   ${layer.holds}`);
    if (i > 0) lines.push('   │');
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(argv[1] ?? '').href) stdout.write(`${picture()}\n`);

/**
 * The layers of src/, bottom first: the one table that lint enforces (scripts/eslint-layers.mjs)
 * and docs/architecture.md draws (`node scripts/layers.mjs` prints the picture).
 *
 * src/ is laid out by domain: about a dozen top-level folders named for what happens in them
 * (core, dsp, formats, lsl, platform, device, streams, recordings, events, guides, api, client,
 * service). A domain may hold parts of several layers (streams/ holds the data plane in
 * streams/runtime/, the built-ins in streams/executables/, the node SDK in streams/sdk/ and the
 * stream lifecycle in streams/ itself), so the table's entries are *units*: a folder path below
 * src/, and a module belongs to the longest unit its path starts with.
 *
 * A module may import its own unit and any unit of a lower layer; never a unit of its own layer
 * or of a higher one, so no two units can import each other. The composer (src/service/, and the
 * entry points directly in src/: cli.ts, index.ts) may import everything; nothing but the entry
 * points imports it. Tests (`*.test.ts`) are not modules of the service: they may import any layer.
 */

import { argv, stdout } from 'node:process';
import { pathToFileURL } from 'node:url';

/** @typedef {{ name: string, folders: string[], holds: string }} Layer */

/** @type {readonly Layer[]} */
export const LAYERS = [
  {
    name: 'vocabulary',
    folders: ['core'],
    holds: 'frames and their codecs, node and port types, electrodes, stream model, YAML, node protocol, the error catalog',
  },
  {
    name: 'libraries',
    folders: ['dsp', 'formats', 'streams/sdk', 'guides/headmap'],
    holds: 'filters, EDF/BDF/CSV and units, the node SDK, the head map',
  },
  {
    name: 'protocols',
    folders: ['lsl'],
    holds: 'the Lab Streaming Layer protocol and the one LSL reader',
  },
  {
    name: 'platform',
    folders: [
      'platform/security',
      'platform/http',
      'platform/store',
      'platform/schemas',
      'platform/metrics',
      'platform/jobs',
      'platform/serial',
    ],
    holds: 'socket rules and token, HTTP statuses, SQLite and its tables, schemas, metrics, jobs, serial ports',
  },
  {
    name: 'data plane',
    folders: ['streams/runtime', 'recordings'],
    holds: 'worker threads, graphs, pipes, external processes; recordings on disk',
  },
  {
    name: 'executables',
    folders: ['streams/executables'],
    holds: 'the built-ins and the worker entry that plugs them in',
  },
  {
    name: 'domain',
    folders: ['streams', 'device'],
    holds: 'stream lifecycle and store; the headset (simulated, replay, live amplifiers) and its kinds',
  },
  {
    name: 'device services',
    folders: ['device/settings', 'device/sources'],
    holds: 'GET/PATCH /system/config: schema, defaults, merge patch; the headset as the frame source',
  },
  { name: 'events', folders: ['events'], holds: 'the hub of live events' },
  {
    name: 'services',
    folders: ['guides', 'streams/quick'],
    holds: 'guide sessions, optimiser, schedules; quick EEG streams',
  },
  {
    name: 'http',
    folders: ['api', 'client'],
    holds: 'routes, schemas, HTTP mapping only; the command-line client of the API',
  },
];

/** The composer's unit: it wires every layer (server.ts, services.ts, config.ts, ...). */
export const COMPOSER = 'service';

/** The entry points, the only files directly in src/: they may import everything. */
export const ENTRY_POINTS = ['cli.ts', 'index.ts'];

/**
 * The unit of a module, from its path relative to src/ ('/'-separated): the longest unit of the
 * table (or the composer) its folder starts with; '' for an entry point directly in src/;
 * undefined for a folder no unit covers.
 */
export function unitOf(path) {
  const parts = path.split('/');
  if (parts.length === 1) return '';
  const folder = parts.slice(0, -1).join('/');
  const units = [COMPOSER, ...LAYERS.flatMap((layer) => layer.folders)];
  let best;
  for (const unit of units) {
    if ((folder === unit || folder.startsWith(`${unit}/`)) && (best === undefined || unit.length > best.length))
      best = unit;
  }
  return best ?? parts[0];
}

/** Layer index of a unit, or undefined for one the table does not know. */
export function layerOf(unit) {
  const index = LAYERS.findIndex((layer) => layer.folders.includes(unit));
  return index < 0 ? undefined : index;
}

/**
 * Whether a module of unit `from` may import one of unit `to` ('' is an entry point in src/,
 * COMPOSER the composer). Returns undefined when allowed, else the reason for a person.
 */
export function refusal(from, to) {
  if (from === to || from === '') return undefined;
  if (to === '') return `src/${from}/ may not import an entry point (${ENTRY_POINTS.join(', ')}): nothing imports them`;
  if (from === COMPOSER) return undefined;
  if (to === COMPOSER)
    return `src/${from}/ may not import the composer (src/${COMPOSER}/): it wires the layers, nothing imports it`;
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
export const WEB_TYPE_SOURCES = ['src/platform/schemas/', 'src/core/', 'src/api/system/schemas.', 'src/api/job-shapes.'];

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

/** A layer's units as the picture names them: siblings under one parent as `platform/{http,jobs}/`. */
function unitNames(folders) {
  const names = [];
  for (const folder of folders) {
    const slash = folder.indexOf('/');
    const parent = slash < 0 ? undefined : folder.slice(0, slash);
    const siblings = folders.filter((f) => parent !== undefined && f.startsWith(`${parent}/`));
    if (siblings.length < 2) names.push(`${folder}/`);
    else if (siblings[0] === folder)
      names.push(`${parent}/{${siblings.map((f) => f.slice(parent.length + 1)).join(',')}}/`);
  }
  return names.join('  ');
}

/** The picture docs/architecture.md shows, top layer first. */
export function picture() {
  const width = Math.max(...LAYERS.map((layer) => unitNames(layer.folders).length));
  const lines = [
    `${`${COMPOSER}/`.padEnd(width)}   the composer: server.ts wires every layer (entry points: src/cli.ts, src/index.ts)`,
    '   │',
  ];
  for (let i = LAYERS.length - 1; i >= 0; i--) {
    const layer = LAYERS[i];
    lines.push(`${unitNames(layer.folders).padEnd(width)}   ${layer.holds}`);
    if (i > 0) lines.push('   │');
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(argv[1] ?? '').href) stdout.write(`${picture()}\n`);

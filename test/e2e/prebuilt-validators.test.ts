/**
 * The service's bundle validates with ajv's standalone code generated at build time
 * (scripts/bundle.mjs, the schemas of src/service/prebuilt-schemas.ts), not with validators compiled
 * at start or on a first stream: every refused setting and stream document must be answered exactly
 * as the run-time validator answers it (pointer, sentence, did-you-mean, every issue), and the bundle
 * must hold a validator generated from each schema as the sources have it today (a schema changed
 * or added since the build is a stale or missing validator, which would answer otherwise).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { schemaFingerprint } from '../../scripts/schema-fingerprint.mjs';
import { executablesDirs, loadSettings } from '../../src/service/config.js';
import { prebuiltSchemas } from '../../src/service/prebuilt-schemas.js';
import { BUILTINS } from '../../src/streams/executables/builtins.js';
import { parseCreateDocument } from '../../src/streams/stream-document.js';
import { isHeadsetdError } from '../../src/core/errors.js';
import { CLI, ROOT, tempDataDir } from '../support/service.js';
import { scratchDir } from '../support/scratch.js';

function runtimeMessage(flags: Record<string, string>, configFile?: string): string {
  try {
    loadSettings(flags, {}, configFile);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the run-time check accepted the settings');
}

const dir = scratchDir('headsetd-settings');
const misspelt = path.join(dir, 'misspelt.json');
writeFileSync(misspelt, JSON.stringify({ lsl: { sessionid: 'lab' } }));
const wrongType = path.join(dir, 'wrong-type.yaml');
writeFileSync(wrongType, 'allowedHosts: yes\nworkers: 0\n');

const CASES: { name: string; flags: Record<string, string>; config?: string }[] = [
  { name: 'a port out of range', flags: { port: '70000' } },
  { name: 'an unknown log level', flags: { 'log-level': 'loud' } },
  { name: 'a device of no known form', flags: { device: 'headphones' } },
  { name: 'a misspelt field in the settings file', flags: {}, config: misspelt },
  { name: 'fields of the wrong type and range in the settings file', flags: {}, config: wrongType },
];

test.each(CASES)('the bundle refuses $name with the run-time validator’s message', ({ flags, config }) => {
  const args = ['serve', '--data-dir', tempDataDir(), '--port', '0'];
  for (const [flag, value] of Object.entries(flags)) args.push(`--${flag}`, value);
  if (config !== undefined) args.push('--config', config);
  const run = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 20_000 });
  expect(run.status).not.toBe(0);
  const expected = runtimeMessage({ port: '0', ...flags }, config);
  // A pointer first: the schema's `/port`, or the device setting's own sentence (device/kinds.ts).
  expect(expected).toMatch(/^The settings? (at )?\//);
  expect(run.stderr.trim()).toBe(`headsetd: ${expected}`);
});

test('the bundle holds a validator generated from each schema as the sources have it', () => {
  const bundle = readFileSync(path.join(ROOT, 'dist', 'headsetd-service.cjs'), 'utf8');
  const schemas = Object.entries(prebuiltSchemas());
  // The settings, the documents, the external executables' config, the device's config, each built-in.
  expect(schemas.length).toBe(5 + BUILTINS.length);
  const missing = schemas
    .map(([key, schema]) => schemaFingerprint(key, schema))
    .filter((fingerprint) => !bundle.includes(JSON.stringify(fingerprint)));
  expect(missing).toEqual([]);
});

/** Every property of a schema given a value of a type no built-in's field takes, and one unknown field. */
function wrongConfig(schema: { properties?: Record<string, unknown> }): Record<string, unknown> {
  const config: Record<string, unknown> = { notAField: 1 };
  for (const key of Object.keys(schema.properties ?? {})) config[key] = { wrong: [true] };
  return config;
}

const STREAM_ID = '5f0c4b1e-7a2d-4c3b-9e8f-0a1b2c3d4e5f';
const DOCUMENTS: { name: string; document: unknown }[] = [
  {
    name: 'a misspelt field of the document',
    document: { id: STREAM_ID, meta: { name: 'x' }, nodes: [], pipe: [] },
  },
  {
    name: 'a node of each built-in with a wrong value in every field, and an external one',
    document: {
      id: STREAM_ID,
      nodes: [
        ...BUILTINS.map((builtin, index) => ({
          id: `n${index}`,
          executable: builtin.name,
          config: wrongConfig(builtin.configSchema as { properties?: Record<string, unknown> }),
        })),
        { id: 'ext', executable: 'not-installed-tool', config: { maxMemoryMb: -1, restart: 'often' } },
      ],
      pipes: [],
    },
  },
  {
    name: 'a built-in with its required fields missing',
    document: { id: STREAM_ID, nodes: [{ id: 'g', executable: 'signal-generator', config: {} }], pipes: [] },
  },
];

test.each(DOCUMENTS)(
  '`headsetd validate` of the bundle refuses $name as the run-time validator does',
  ({ document }) => {
    const dataDir = tempDataDir();
    const file = path.join(scratchDir('headsetd-document'), 'stream.json');
    writeFileSync(file, JSON.stringify(document));
    let expected: { body: unknown; message: string } | undefined;
    try {
      parseCreateDocument(document, {
        executablesDirs: executablesDirs(loadSettings({ 'data-dir': dataDir }, {})),
      });
    } catch (error) {
      if (!isHeadsetdError(error)) throw error;
      expected = { body: error.toBody(), message: error.message };
    }
    expect(expected).toBeDefined();
    const run = spawnSync(process.execPath, [CLI, 'validate', file, '--data-dir', dataDir], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual(expected?.body);
    expect(run.stderr.trim()).toBe(`${file}: ${expected?.message}`);
  },
);

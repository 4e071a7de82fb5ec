/**
 * The environment an external node starts with (docs/node-protocol.md §Starting): a clean,
 * minimal set rather than the service's own (which may hold secrets such as its token), plus
 * where the SDKs live so that a one-file node needs no package installation.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ProtocolEncoding } from '../../../core/protocol/messages.js';
import { PROTOCOL_VERSION } from '../../../core/protocol/messages.js';

/** True when this module runs from the TypeScript sources (tsx, vitest) rather than from dist/. */
const FROM_SOURCES = import.meta.url.endsWith('.ts');

/** The package's root: this file is src/streams/runtime/external/child-env.ts or dist/streams/runtime/external/child-env.js. */
const PACKAGE_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** Where the SDKs are, as given to children in HEADSETD_SDK and PYTHONPATH. */
export const SDK_LOCATIONS = {
  /** URL of the TypeScript SDK's entry, for `await import(process.env.HEADSETD_SDK)`. */
  javascript: pathToFileURL(
    FROM_SOURCES
      ? path.join(PACKAGE_ROOT, 'src/streams/sdk/node.ts')
      : path.join(PACKAGE_ROOT, 'dist/streams/sdk/node.js'),
  ).href,
  /** Directory holding headsetd_node.py. */
  python: path.join(PACKAGE_ROOT, 'sdk/python'),
};

/**
 * When the service itself runs from sources, the JS SDK is TypeScript: children that are Node
 * programs then need tsx's loader to import it. Production (dist/) never sets NODE_OPTIONS.
 */
function developmentNodeOptions(): string | undefined {
  if (!FROM_SOURCES) return undefined;
  try {
    const loader = createRequire(import.meta.url).resolve('tsx');
    return `--import "${pathToFileURL(loader).href}"`;
  } catch {
    return undefined;
  }
}

/** Variables passed through from the service's environment; nothing else is. */
const PASSED_THROUGH = ['PATH', 'HOME', 'TMPDIR', 'TZ'] as const;

export interface ChildEnvInput {
  streamId: string;
  nodeId: string;
  encoding: ProtocolEncoding;
  /** Extra variables (tests, or settings of the host); they win over the defaults. */
  extra?: Readonly<Record<string, string>>;
}

export function childEnvironment(input: ChildEnvInput): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of PASSED_THROUGH) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  if (!('PATH' in env)) env.PATH = '/usr/local/bin:/usr/bin:/bin';
  env.LANG = 'C.UTF-8';
  env.HEADSETD_STREAM_ID = input.streamId;
  env.HEADSETD_NODE_ID = input.nodeId;
  env.HEADSETD_PROTOCOL = input.encoding;
  env.HEADSETD_PROTOCOL_VERSION = String(PROTOCOL_VERSION);
  env.HEADSETD_SDK = SDK_LOCATIONS.javascript;
  env.PYTHONPATH = SDK_LOCATIONS.python;
  // Python buffers stderr lines into blocks when it is a pipe; the node's log wants them as written.
  env.PYTHONUNBUFFERED = '1';
  env.PYTHONIOENCODING = 'utf-8';
  // Importing the SDK would otherwise write __pycache__/ beside it: inside the package, which may be
  // read-only or a checkout, and a write nobody asked for.
  env.PYTHONDONTWRITEBYTECODE = '1';
  const nodeOptions = developmentNodeOptions();
  if (nodeOptions !== undefined) env.NODE_OPTIONS = nodeOptions;
  return { ...env, ...input.extra };
}

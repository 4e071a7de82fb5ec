/**
 * The settings of one external node: what the node's config asks for (`protocol`,
 * `readyTimeoutMs`), what the host passes, and the defaults of docs/node-protocol.md.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { isEncoding, MAX_MESSAGE_BYTES, type ProtocolEncoding } from '../../../core/protocol/messages.js';

/** Options of `createExternalNode`; every field has a default. */
export interface ExternalNodeOptions {
  /** Wire encoding; default: the node config's `protocol`, else `ndjson`. */
  encoding?: ProtocolEncoding;
  /** How long the child has to answer `ready`, ms; default: config `readyTimeoutMs`, else 9 500. */
  readyTimeoutMs?: number;
  /** How long `stop` waits after the stop message before SIGTERM, and after SIGTERM before SIGKILL, ms. Default 2000. */
  stopGraceMs?: number;
  /** Largest message accepted from the child, bytes. Default 16 MiB. */
  maxMessageBytes?: number;
  /** Frames waiting in each direction before the oldest is dropped. Default 256. */
  maxQueuedFrames?: number;
  /** The allowed file the command runs (registry's `resolution.file`); its directory is the child's cwd. */
  file?: string;
  /** Extra environment variables for the child. */
  env?: Readonly<Record<string, string>>;
  /** The command line named in messages; default `argv` (a transpiled script: the line the user wrote). */
  label?: string;
}

export interface ExternalNodeSettings {
  encoding: ProtocolEncoding;
  readyTimeoutMs: number;
  stopGraceMs: number;
  maxMessageBytes: number;
  maxQueuedFrames: number;
  cwd: string;
  env: Readonly<Record<string, string>>;
}

/**
 * Just under the runtime's own 10 s start limit (node-runner.ts), so that a slow child fails with
 * this adapter's message, which carries its last stderr lines.
 */
export const DEFAULT_READY_TIMEOUT_MS = 9_500;

/** Programs that run a script named by their first non-option argument (as the registry knows them). */
const INTERPRETER = /^(node|nodejs|python[0-9.]*|bash|sh|perl|ruby|Rscript|tsx|deno|bun)$/;

/** The file a command line runs: the script of an interpreter, else the program itself. */
export function programFile(argv: readonly string[]): string | undefined {
  const program = argv[0];
  if (program === undefined) return undefined;
  if (INTERPRETER.test(path.basename(program))) {
    const script = argv.find((word, i) => i > 0 && !word.startsWith('-'));
    if (script !== undefined) return script;
  }
  return program;
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function positiveNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

export function resolveSettings(
  config: Readonly<Record<string, unknown>>,
  argv: readonly string[],
  options: ExternalNodeOptions,
): ExternalNodeSettings {
  const configured = config.protocol;
  if (configured !== undefined && !isEncoding(configured)) {
    throw new RangeError(
      `the node's 'protocol' must be 'ndjson' or 'binary', not ${JSON.stringify(configured)}`,
    );
  }
  const file = options.file ?? programFile(argv);
  const directory = file !== undefined && isFile(file) ? path.dirname(path.resolve(file)) : undefined;
  return {
    encoding: options.encoding ?? configured ?? 'ndjson',
    readyTimeoutMs:
      options.readyTimeoutMs ?? positiveNumber(config.readyTimeoutMs) ?? DEFAULT_READY_TIMEOUT_MS,
    stopGraceMs: options.stopGraceMs ?? 2_000,
    maxMessageBytes: options.maxMessageBytes ?? MAX_MESSAGE_BYTES,
    maxQueuedFrames: options.maxQueuedFrames ?? 256,
    // A bare program name (found on PATH) or inline code has no directory of its own: run it in the service's.
    cwd: directory ?? process.cwd(),
    env: options.env ?? {},
  };
}

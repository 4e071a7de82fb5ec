/**
 * The `headsetd` command's own commands: `serve`, `validate FILE`, `token`, `--help` and
 * `--version` (docs/cli.md). src/cli.ts loads this module for every command that is not a client
 * command, so a client command never loads the settings' schema, the stream validator or the
 * server; in the build this module and what it imports are their own bundle
 * (dist/headsetd-service.cjs, scripts/bundle.mjs).
 * stdout carries only what a script reads (the listening line, validation results, the token);
 * logs go to stderr.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { BOOLEAN_KEYS, executablesDirs, FLAGS, loadSettings, type Settings } from './config.js';
import { isHeadsetdError } from '../core/errors.js';
import { containChildren } from '../streams/runtime/external/cgroup.js';
import { installShutdown } from './shutdown.js';
import { assertDocument } from '../platform/schemas/depth.js';
import { parseJsonText } from '../platform/schemas/json-text.js';
import { parseCreateDocument } from '../streams/stream-document.js';
import { parseYamlText } from '../platform/schemas/yaml-text.js';
import { announceCreatedToken, ensureToken, rotateToken, tokenPath } from '../platform/security/token.js';
import { VERSION } from './version.js';
import { usePrebuiltValidators } from './prebuilt-schemas.js';
import { errorMessage } from '../core/error-message.js';

/** `headsetd --help`: the client commands' lines follow. */
const HELP = `headsetd ${VERSION}: the local HTTP service of a 21-electrode EEG headset

Usage:
  headsetd serve [options]          serve the API (default http://127.0.0.1:42069)
  headsetd validate FILE [options]  check a stream definition (YAML or JSON) offline;
                                    prints what the API would answer, exits 1 when invalid
  headsetd token [--data-dir DIR]   print the API token (created if missing)
  headsetd token rotate [--data-dir DIR]
                                    replace the token with a new one and print it; a running
                                    service accepts only the new one from its next request on
  headsetd --help | --version

Options (each also as an environment variable HEADSETD_<OPTION>, e.g. HEADSETD_PORT=8080):
  --host HOST              address to listen on (default 127.0.0.1; beyond loopback a token is required)
  --port N                 port (default 42069; 0 picks a free one)
  --data-dir DIR           database, token, recordings, executables (default ~/.local/share/headsetd)
  --device simulated|simulated:seated|replay:FILE|cyton:PORT|lsl:QUERY
                           the headset: simulated (default; its electrodes start retracted),
                           simulated:seated (worn, every electrode already on the scalp),
                           an EDF/BDF recording played back, an OpenBCI Cyton board on serial
                           port PORT (cyton:/dev/ttyUSB0), or the LSL stream QUERY finds
                           (lsl:type=EEG, lsl:name=obci_eeg1); docs/devices.md
  --seed N                 seed of the simulated headset, for repeatable signals
  --log-level LEVEL        fatal, error, warn, info (default), debug, trace, silent
  --workers N              worker threads running the streams (default: one per core; 1 to 64)
  --executables-dir DIR    another directory of allowed external executables (repeatable)
  --allow-origin ORIGIN    allow browser requests from ORIGIN (repeatable)
  --allow-host NAME        accept requests addressed to host NAME (repeatable)
  --pipe-allow-host HOST   let quick streams pipe frames and osc nodes send to HOST, besides loopback (repeatable)
  --discovery auto|on|off answer the maker's SDK discovery on UDP 48010 (auto, the default: only while
                           listening beyond loopback; docs/instinct-sdk.md)
  --trust-network CIDR     requests from this client network need no token (repeatable; for the maker's
                           SDK, which sends none; docs/security.md); refused when broader than an IPv4 /8
                           or an IPv6 /16, or holding every IPv4 address (::ffff:0:0/96, ::/80)
  --trust-network-any      trust --trust-network blocks of any breadth, 0.0.0.0/0 included (anyone who
                           reaches the device then drives it without the token; warned at start)
  --lsl-interface NAME     open Lab Streaming Layer outlets on network interface NAME too (repeatable;
                           by default they are seen on this machine only, docs/lsl.md)
  --config FILE            a settings file (JSON or YAML) with the same settings in camelCase
Flags win over environment variables, which win over the settings file.
`;

const LIST_FLAGS = new Set([
  'executables-dir',
  'allow-origin',
  'allow-host',
  'pipe-allow-host',
  'trust-network',
  'lsl-interface',
]);

function parse(argv: string[]) {
  const options = Object.fromEntries(
    Object.entries(FLAGS).map(([flag, key]: [string, keyof Settings]) => [
      flag,
      BOOLEAN_KEYS.has(key)
        ? { type: 'boolean' as const }
        : { type: 'string' as const, multiple: LIST_FLAGS.has(flag) },
    ]),
  );
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      ...options,
      config: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
}

function settingsFrom(values: Record<string, unknown>): Settings {
  const flags: Record<string, string | string[]> = {};
  for (const flag of Object.keys(FLAGS)) {
    const value = values[flag];
    if (typeof value === 'string' || Array.isArray(value)) flags[flag] = value as string | string[];
    if (value === true) flags[flag] = 'true';
  }
  return loadSettings(flags, process.env, values.config as string | undefined);
}

function readDocument(file: string): unknown {
  const document = parseDocumentText(file, readFileSync(file, 'utf8'));
  assertDocument(document);
  return document;
}

function parseDocumentText(file: string, text: string): unknown {
  if (path.extname(file).toLowerCase() === '.json') return parseJsonText(text);
  return parseYamlText(text);
}

function validate(file: string, settings: Settings): number {
  try {
    const definition = parseCreateDocument(readDocument(file), {
      executablesDirs: executablesDirs(settings),
    });
    process.stdout.write(`${JSON.stringify({ id: definition.id, success: true }, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (!isHeadsetdError(error)) throw error;
    process.stdout.write(`${JSON.stringify(error.toBody(), null, 2)}\n`);
    process.stderr.write(`${file}: ${error.message}\n`);
    return 1;
  }
}

async function serve(settings: Settings): Promise<void> {
  // Loaded here, not at the top: `validate` and `token` never evaluate the server's modules
  // (Fastify, the device, the runtime).
  const { startServer } = await import('./server.js');
  const logger = pino({ level: settings.logLevel, base: { service: 'headsetd' } }, pino.destination(2));
  // Before any child is spawned: children are born in the cgroup their parent is in. The move
  // runs on libuv's thread pool while the service starts; the server awaits it before listening.
  const containing = containChildren();
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer({ settings, logger, beforeListen: containing });
  } catch (error) {
    (await containing)?.release();
    throw error;
  }
  const containment = await containing;
  logger.debug(
    containment === undefined
      ? 'child processes are contained by process groups only (no writable cgroup v2 here)'
      : `child processes are contained in the cgroup ${containment.dir}`,
  );
  if (server.token?.created === true) {
    announceCreatedToken(server.token.token, tokenPath(settings.dataDir), process.stderr, logger);
  }
  // Before the listening line: a supervisor may signal as soon as it reads it.
  installShutdown(server, containment, logger);
  process.stdout.write(`headsetd listening on ${server.url}\n`);
}

/**
 * Runs the command the arguments name (serve when they name none); resolves with the exit code,
 * or -1 while the service serves.
 */
export async function runServiceCommand(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    process.stderr.write(`headsetd: ${(error as Error).message}\nRun 'headsetd --help' for usage.\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    // The client's modules are src/cli.ts's; here they are needed for this text only, so a start of
    // the service does not evaluate them a second time.
    const { clientHelp } = await import('../client/index.js');
    process.stdout.write(`${HELP}\n${clientHelp()}\n`);
    return 0;
  }
  if (values.version === true) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const [command = 'serve', ...rest] = positionals;
  usePrebuiltValidators();
  let settings: Settings;
  try {
    settings = settingsFrom(values);
  } catch (error) {
    process.stderr.write(`headsetd: ${errorMessage(error)}\n`);
    return 2;
  }
  switch (command) {
    case 'serve':
      await serve(settings);
      return -1;
    case 'validate': {
      const file = rest[0];
      if (file === undefined) {
        process.stderr.write(
          'headsetd validate: name the file to check, e.g. headsetd validate stream.yaml\n',
        );
        return 2;
      }
      try {
        return validate(file, settings);
      } catch (error) {
        process.stderr.write(`headsetd validate: cannot read ${file}: ${(error as Error).message}\n`);
        return 2;
      }
    }
    case 'token': {
      const action = rest[0];
      if (action === undefined) {
        process.stdout.write(`${ensureToken(settings.dataDir).token}\n`);
        return 0;
      }
      if (action === 'rotate') {
        process.stdout.write(`${rotateToken(settings.dataDir)}\n`);
        process.stderr.write(
          `headsetd: a new token is in ${tokenPath(settings.dataDir)}; the old one is refused from now on (sockets already open stay open until they close).\n`,
        );
        return 0;
      }
      process.stderr.write(
        `headsetd token: unknown action '${action}'; use 'headsetd token' to print the token or 'headsetd token rotate' to replace it.\n`,
      );
      return 2;
    }
    default:
      process.stderr.write(`headsetd: unknown command '${command}'. Run 'headsetd --help' for usage.\n`);
      return 2;
  }
}

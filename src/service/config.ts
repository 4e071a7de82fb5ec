/**
 * Service settings: a TypeBox schema, filled from command-line flags, then `HEADSETD_<FLAG>`
 * environment variables, then a settings file (`--config FILE`, JSON or YAML), then defaults.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type Static, Type } from 'typebox';
import { HeadsetdError } from '../core/errors.js';
import { assertDocument } from '../platform/schemas/depth.js';
import { isLoopbackName } from '../platform/security/access.js';
import { trustedNetworks } from '../platform/security/trusted-networks.js';
import { check, issuesToError } from '../platform/schemas/validator.js';
import { parseYamlText } from '../platform/schemas/yaml-text.js';
import { errorMessage } from '../core/error-message.js';
import { deviceForms, deviceSettingPattern, deviceSettingProblem } from '../device/kinds.js';
import { defaultDataDir } from './data-dir.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const SettingsSchema = Type.Object(
  {
    host: Type.String({
      minLength: 1,
      description: 'Address to listen on; beyond loopback a token is required.',
    }),
    port: Type.Integer({ minimum: 0, maximum: 65535, description: '0 picks a free port.' }),
    dataDir: Type.String({
      minLength: 1,
      description: 'Database, token, recordings and executables live here.',
    }),
    device: Type.String({
      pattern: deviceSettingPattern(),
      description: `${deviceForms()}.`,
    }),
    seed: Type.Optional(
      Type.Integer({ description: 'Seed of the simulated headset, for repeatable signals.' }),
    ),
    logLevel: Type.Enum(LOG_LEVELS),
    workers: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 64,
        description: 'Data-plane worker threads running the streams (default: one per core).',
      }),
    ),
    executablesDirs: Type.Array(Type.String({ minLength: 1 }), {
      description: 'Extra directories of allowed external executables.',
    }),
    allowedOrigins: Type.Array(Type.String()),
    allowedHosts: Type.Array(Type.String()),
    pipeAllowedHosts: Type.Array(Type.String(), {
      description:
        'Hosts a quick stream may pipe its frames to and an osc node may send to, besides loopback (docs/security.md).',
    }),
    discovery: Type.Enum(['auto', 'on', 'off'], {
      description:
        "Answer the maker's SDK discovery (UDP 48010): auto answers while listening beyond loopback (docs/instinct-sdk.md).",
    }),
    trustedNetworks: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      description:
        "Client networks (CIDR, such as 192.168.1.0/24) whose requests need no token, for clients that cannot send one such as the maker's SDK; one broader than an IPv4 /8 or an IPv6 /16, or holding every IPv4 address through ::ffff:0:0/96, is refused unless trustNetworkAny (docs/security.md).",
    }),
    trustNetworkAny: Type.Boolean({
      description:
        'Trust networks of any breadth in trustedNetworks, 0.0.0.0/0 included; the service warns of it at start (docs/security.md).',
    }),
    lsl: Type.Object(
      {
        interfaces: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
          description:
            'Network interfaces (names, as `ip link` shows them) LSL outlets open on besides loopback; none by default.',
        }),
        sessionId: Type.String({
          minLength: 1,
          maxLength: 255,
          description: "LSL session id of the streams published and looked for (liblsl's lab.SessionID).",
        }),
        knownPeers: Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
          description: "Hosts LSL inlets query directly (liblsl's lab.KnownPeers).",
        }),
        multicastPort: Type.Integer({ minimum: 1, maximum: 65535, description: 'LSL discovery port.' }),
        basePort: Type.Integer({
          minimum: 1,
          maximum: 65535,
          description: 'First port of the range LSL outlets take theirs from.',
        }),
        portRange: Type.Integer({ minimum: 1, maximum: 1000, description: 'Ports in that range.' }),
      },
      { additionalProperties: false, description: 'Lab Streaming Layer (docs/lsl.md).' },
    ),
  },
  { additionalProperties: false },
);

export type Settings = Static<typeof SettingsSchema>;

export const DEFAULTS: Settings = {
  host: '127.0.0.1',
  port: 42069,
  dataDir: defaultDataDir(),
  device: 'simulated',
  logLevel: 'info',
  executablesDirs: [],
  allowedOrigins: [],
  allowedHosts: [],
  pipeAllowedHosts: [],
  discovery: 'auto',
  trustedNetworks: [],
  trustNetworkAny: false,
  lsl: {
    interfaces: [],
    sessionId: 'default',
    knownPeers: [],
    multicastPort: 16571,
    basePort: 16572,
    portRange: 32,
  },
};

/** Flag name (kebab case, as typed) → settings key; lists repeat the flag or join values with commas. */
export const FLAGS = {
  host: 'host',
  port: 'port',
  'data-dir': 'dataDir',
  device: 'device',
  seed: 'seed',
  'log-level': 'logLevel',
  workers: 'workers',
  'executables-dir': 'executablesDirs',
  'allow-origin': 'allowedOrigins',
  'allow-host': 'allowedHosts',
  'pipe-allow-host': 'pipeAllowedHosts',
  discovery: 'discovery',
  'trust-network': 'trustedNetworks',
  'trust-network-any': 'trustNetworkAny',
  // Sets lsl.interfaces, the one LSL setting that has a flag.
  'lsl-interface': 'lsl',
} as const satisfies Record<string, keyof Settings>;

type FlagName = keyof typeof FLAGS;
const LIST_KEYS = new Set<keyof Settings>([
  'executablesDirs',
  'allowedOrigins',
  'allowedHosts',
  'pipeAllowedHosts',
  'trustedNetworks',
  'lsl',
]);
const INTEGER_KEYS = new Set<keyof Settings>(['port', 'seed', 'workers']);
/** Switches: a flag alone is `true` (the command line passes it so); the environment says true or false. */
export const BOOLEAN_KEYS = new Set<keyof Settings>(['trustNetworkAny']);

function convert(key: keyof Settings, raw: string | string[], source: string): unknown {
  if (LIST_KEYS.has(key)) {
    return (Array.isArray(raw) ? raw : [raw])
      .flatMap((v) => v.split(','))
      .map((v) => v.trim())
      .filter((v) => v !== '');
  }
  const value = Array.isArray(raw) ? (raw[raw.length - 1] ?? '') : raw;
  if (BOOLEAN_KEYS.has(key)) {
    const word = value.trim().toLowerCase();
    if (word === 'true' || word === '1') return true;
    if (word === 'false' || word === '0') return false;
    throw new HeadsetdError('invalid_request', `${source} must be true or false, got '${value}'.`, {
      setting: key,
    });
  }
  if (INTEGER_KEYS.has(key)) {
    if (!/^-?\d+$/.test(value.trim())) {
      throw new HeadsetdError('invalid_request', `${source} must be a whole number, got '${value}'.`, {
        setting: key,
      });
    }
    return Number(value);
  }
  return value;
}

/** Settings given by flags (already parsed into name → values), env and an optional file. */
export function loadSettings(
  flags: Partial<Record<FlagName, string | string[]>>,
  env: NodeJS.ProcessEnv,
  configFile?: string,
): Settings {
  const fromFile: Partial<Settings> = {};
  const file = configFile ?? env.HEADSETD_CONFIG;
  if (file !== undefined && file !== '') {
    let parsed: unknown;
    try {
      parsed = parseYamlText(readFileSync(file, 'utf8'));
      assertDocument(parsed);
    } catch (error) {
      const message = errorMessage(error);
      throw new HeadsetdError('invalid_request', `The settings file ${file} cannot be read: ${message}`);
    }
    // An empty file (YAML null) holds no settings.
    if (parsed !== undefined && parsed !== null && (typeof parsed !== 'object' || Array.isArray(parsed))) {
      throw new HeadsetdError(
        'invalid_request',
        `The settings file ${file} must hold an object of settings.`,
      );
    }
    if (parsed !== null && parsed !== undefined) Object.assign(fromFile, parsed);
  }
  const fromEnv: Partial<Record<keyof Settings, unknown>> = {};
  const fromFlags: Partial<Record<keyof Settings, unknown>> = {};
  for (const [flag, key] of Object.entries(FLAGS) as [FlagName, keyof Settings][]) {
    const envName = `HEADSETD_${flag.toUpperCase().replace(/-/g, '_')}`;
    const envValue = env[envName];
    if (envValue !== undefined && envValue !== '') fromEnv[key] = convert(key, envValue, envName);
    const flagValue = flags[flag];
    if (flagValue !== undefined) fromFlags[key] = convert(key, flagValue, `--${flag}`);
  }
  const settings = { ...DEFAULTS, ...fromFile, ...fromEnv, ...fromFlags };
  // `lsl` is an object: the file's fields over the defaults, and --lsl-interface over its interfaces.
  const fileLsl: unknown = fromFile.lsl;
  if (fileLsl === undefined || (typeof fileLsl === 'object' && fileLsl !== null && !Array.isArray(fileLsl))) {
    const interfaces = fromFlags.lsl ?? fromEnv.lsl;
    settings.lsl = {
      ...DEFAULTS.lsl,
      ...(fileLsl ?? {}),
      ...(interfaces === undefined ? {} : { interfaces: interfaces as string[] }),
    };
  }
  assertDeviceSetting(
    settings.device,
    fromFlags.device !== undefined
      ? '--device'
      : fromEnv.device !== undefined
        ? 'HEADSETD_DEVICE'
        : fromFile.device !== undefined
          ? 'the settings file'
          : 'default',
  );
  const issues = check(SettingsSchema, settings);
  if (issues.length > 0) throw issuesToError(issues, 'The settings');
  const result = settings as Settings;
  // Parsed here too, so that a malformed or too broad network stops `serve` naming where it was given.
  trustedNetworks(result.trustedNetworks, {
    any: result.trustNetworkAny,
    source:
      fromFlags.trustedNetworks !== undefined
        ? '--trust-network'
        : fromEnv.trustedNetworks !== undefined
          ? 'HEADSETD_TRUST_NETWORK'
          : `trustedNetworks of the settings file ${file ?? ''}`,
  });
  return { ...result, dataDir: path.resolve(result.dataDir) };
}

/** Where external executables may live: `<data-dir>/executables` first, then each `--executables-dir`. */
export function executablesDirs(settings: Settings): string[] {
  return [
    path.join(settings.dataDir, 'executables'),
    ...settings.executablesDirs.map((d) => path.resolve(d)),
  ];
}

/** True when listening on `host` stays on this machine (the same test the sockets' Host rule uses). */
export function isLoopbackHost(host: string): boolean {
  return isLoopbackName(host);
}

/**
 * Throws the `invalid_request` error for a bad `device` setting, before the schema's check: a value
 * of the wrong form gets a message that says what to give, with an example, rather than the
 * schema's pattern. `source` names where it was given.
 */
function assertDeviceSetting(value: unknown, source: string): void {
  const problem = deviceSettingProblem(value);
  if (problem === undefined) return;
  throw new HeadsetdError('invalid_request', `The setting /device (${source}): ${problem}.`, {
    path: '/device',
    value,
  });
}

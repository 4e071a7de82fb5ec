/**
 * What the control plane knows of a built-in executable (name, aliases, role, ports, config schema
 * and the checks a schema cannot express), and the config settings every node or every external
 * node accepts: the shape builtins.ts and lsl-builtins.ts fill in.
 */
import { Type, type TSchema } from 'typebox';

export type NodeRole = 'source' | 'processor' | 'sink';

/** A defect found by a check that JSON schema cannot express; `path` is relative to the config. */
export interface ConfigIssue {
  path: string;
  message: string;
  /** The error's code when it is not `validation_failed` (a destination off the allow-list: `forbidden_origin`). */
  code?: 'forbidden_origin';
}

/** What a config check may know of the service it runs on; nothing when a document is checked offline. */
export interface CheckContext {
  /** The names of the device's channels (any case), on a running service. */
  readonly deviceChannels?: readonly string[];
  /** The hosts a node may send to (platform/security/outbound-hosts.ts), on a running service. */
  readonly outboundHosts?: readonly string[];
}

export interface BuiltinDescriptor {
  name: string;
  /** File names (without extension) of reference command lines that resolve to this built-in. */
  aliases: readonly string[];
  role: NodeRole;
  inputs: readonly string[];
  outputs: readonly string[];
  description: string;
  configSchema: TSchema;
  /** Checks across fields, run after the schema passed; `context` says what the service runs on. */
  check?: (config: Record<string, unknown>, context: CheckContext) => ConfigIssue[];
  /** A source's sample rate, Hz, when its config fixes it; undefined when only the running node knows. */
  outputRate?: (config: Record<string, unknown>) => number | undefined;
  /**
   * A processor's output rate at an input rate known before the stream runs (band-power's one
   * value per step, resample's input × up / down); undefined when it cannot tell.
   */
  outputRateAt?: (config: Record<string, unknown>, inputRate: number) => number | undefined;
  /** A processor whose output has its input's sample rate. */
  keepsRate?: boolean;
  /** Defects of the config at an input sample rate known before the stream runs (streams/rates.ts). */
  checkAtRate?: (config: Record<string, unknown>, rate: number) => ConfigIssue[];
  /**
   * The channel names of the node's output when known before the stream runs (streams/channels.ts):
   * a source's from its config (`input` undefined), a processor's from its input's.
   */
  outputChannels?: (
    config: Record<string, unknown>,
    input: readonly string[] | undefined,
  ) => readonly string[] | undefined;
  /** Defects of the config for input frames with these channels, known before the stream runs. */
  checkWithChannels?: (config: Record<string, unknown>, channels: readonly string[]) => ConfigIssue[];
  /**
   * Every unit a source's (or a processor's) output is in, when its config fixes it (`['µV']` for
   * EEG, `['µV²', 'dB']` for a band power); undefined when only the running node knows.
   */
  outputUnits?: (config: Record<string, unknown>) => readonly string[] | undefined;
  /** A processor whose output has its input's units (a filter). */
  keepsUnits?: boolean;
  /** What the node needs of its input, checked when a stream is made or edited (streams/input-needs.ts). */
  needs?: InputNeeds;
  /**
   * The device channels the node subscribes to when it starts (the headset's EEG source; an empty
   * list: every channel acquired then). A start is refused on the main thread, before any worker
   * runs, when the device does not acquire them now (StreamManager.signal).
   */
  subscribedChannels?: (config: Record<string, unknown>) => readonly string[];
}

/**
 * What a node needs of what comes in on its inputs. A pipe whose source is known (before the
 * stream runs) not to give it is refused at create or edit, pointing at the pipe.
 */
export interface InputNeeds {
  /** `µV`: every channel in µV (EEG); a band power, a score or an accelerometer will not do. */
  readonly units?: 'µV';
  /** Hz: the lowest sample rate the node works at. */
  readonly minRate?: number;
}

/** A number from a config, or undefined (the schema check reports a wrong type). */
export function numberOf(config: Record<string, unknown>, key: string): number | undefined {
  const value = config[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Settings every node accepts in its config, whatever its executable. */
export const COMMON_CONFIG = {
  restart: Type.Optional(
    Type.Enum(['no', 'on-failure', 'always'], {
      default: 'on-failure',
      description: 'Supervision: restart the node never, after a failure (default) or whenever it ends.',
    }),
  ),
};

/**
 * Settings an external executable's config accepts besides its own keys: the resource limits the
 * runtime enforces on its process group (docs/node-protocol.md §Resource limits). Built-ins run in
 * the stream's worker thread, not a process of their own, so they take none.
 */
export const EXTERNAL_CONFIG = {
  ...COMMON_CONFIG,
  maxMemoryMb: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      description:
        "Largest resident memory (RSS) of the node's processes together, MiB; over it the node is killed and in error.",
    }),
  ),
  maxCpuSeconds: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      description:
        "Largest CPU time (user + system) of the node's processes since it started, s; over it the node is killed and in error.",
    }),
  ),
};

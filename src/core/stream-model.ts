/**
 * The stored, normalised form of a stream definition: what validation produces, the store keeps,
 * the manager reconciles and the runtime runs. Normalisation only renames (`target` → `destination`)
 * and drops read-only fields; it never invents values, so a stream reads back as it was written.
 */

/**
 * Limits that keep one document from exhausting the device (headsetd's own choice);
 * platform/schemas/stream.ts builds the document's schema from these and the lists below.
 */
export const STREAM_LIMITS = {
  maxStreams: 256,
  maxNodes: 256,
  maxPipes: 1024,
  maxIdLength: 128,
  maxPipeCapacity: 65_536,
  defaultPipeCapacity: 64,
} as const;

export const NODE_TYPES = ['EXECUTABLE', 'EXECUTABLE_PRODUCER', 'EXECUTABLE_CONSUMER'] as const;
export const NODE_META_TYPES = ['SOURCE', 'PROCESSOR', 'FILTER', 'OUTPUT', 'RECORDER'] as const;
export const PIPE_POLICIES = ['drop-oldest', 'block'] as const;

export type NodeType = (typeof NODE_TYPES)[number];
export type NodeMetaType = (typeof NODE_META_TYPES)[number];
export type PipePolicy = (typeof PIPE_POLICIES)[number];

export interface StreamMeta {
  name?: string;
  description?: string;
  tags?: string[];
  version?: number;
  /** ISO 8601, set by the server at creation. */
  created: string;
  /** ISO 8601, set by the server at every change of the definition. */
  updated: string;
  [key: string]: unknown;
}

export interface NodeDef {
  id: string;
  type?: NodeType;
  meta?: { type?: NodeMetaType; [key: string]: unknown };
  executable: string;
  config?: Record<string, unknown>;
}

export interface PipeDef {
  id: string;
  source: string;
  destination: string;
  sourcePort?: string;
  targetPort?: string;
  policy?: PipePolicy;
  capacity?: number;
}

export interface StreamDefinition {
  /** Lower-case UUID. */
  id: string;
  meta: StreamMeta;
  nodes: NodeDef[];
  pipes: PipeDef[];
}

export const DEFAULT_OUTPUT_PORT = 'out';
export const DEFAULT_INPUT_PORT = 'in';

/** The port a pipe leaves from and arrives at, with the defaults filled in. */
export function pipeEnds(pipe: PipeDef): { sourcePort: string; targetPort: string } {
  return {
    sourcePort: pipe.sourcePort ?? DEFAULT_OUTPUT_PORT,
    targetPort: pipe.targetPort ?? DEFAULT_INPUT_PORT,
  };
}

/** The queue settings of a pipe, defaults filled in (docs/api.md §Validation). */
export function pipeQueue(pipe: PipeDef): { policy: PipePolicy; capacity: number } {
  return {
    policy: pipe.policy ?? 'drop-oldest',
    capacity: pipe.capacity ?? STREAM_LIMITS.defaultPipeCapacity,
  };
}

/** Stream states (docs/api.md §Lifecycle), lower case as in GET status. */
export const STREAM_STATES = [
  'created',
  'starting',
  'running',
  'pausing',
  'paused',
  'stopping',
  'stopped',
  'error',
] as const;
export type StreamState = (typeof STREAM_STATES)[number];

export const NODE_STATES = ['created', 'initialized', 'running', 'paused', 'error', 'terminated'] as const;
export type NodeState = (typeof NODE_STATES)[number];

export const STREAM_SIGNALS = ['start', 'stop', 'pause', 'resume', 'reconcile'] as const;
export type StreamSignal = (typeof STREAM_SIGNALS)[number];

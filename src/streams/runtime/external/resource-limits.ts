/**
 * The optional resource limits of an external node (`maxMemoryMb`, `maxCpuSeconds` in its config;
 * docs/node-protocol.md §Resource limits). The node's process group is sampled from /proc every
 * `LIMIT_SAMPLE_MS`: memory is the resident memory (RSS) of all its processes together, CPU the
 * user + system time they have used since the node started. Why sampling rather than setrlimit:
 * RLIMIT_AS counts address space, not memory, so it refuses runtimes that reserve large virtual
 * areas up front (Node, the JVM, Go) long before they use the memory; and both rlimits apply to
 * each process alone, while a node may be a shell script with children. Measuring the group's RSS
 * bounds what the node really takes from the headset.
 */
import { type GroupUsage, groupUsage } from './group-usage.js';

/** How often a limited node's group is measured, ms. A breach is seen at most this late. */
export const LIMIT_SAMPLE_MS = 100;

const MIB = 1024 * 1024;

export interface ResourceLimits {
  /** Largest resident memory of the group, MiB. */
  readonly maxMemoryMb?: number;
  /** Largest CPU time of the group, seconds. */
  readonly maxCpuSeconds?: number;
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

/** The limits a node's config sets (validated when the stream document was; anything else: none). */
export function limitsOf(config: Readonly<Record<string, unknown>>): ResourceLimits {
  const maxMemoryMb = positive(config.maxMemoryMb);
  const maxCpuSeconds = positive(config.maxCpuSeconds);
  return {
    ...(maxMemoryMb === undefined ? {} : { maxMemoryMb }),
    ...(maxCpuSeconds === undefined ? {} : { maxCpuSeconds }),
  };
}

/** The sentence a breach is reported with: the limit, its value, and what was measured. */
export function limitBreach(limits: ResourceLimits, usage: GroupUsage): string | undefined {
  if (limits.maxMemoryMb !== undefined && usage.rssBytes > limits.maxMemoryMb * MIB) {
    const measured = roundedUp(usage.rssBytes / MIB, 1);
    return `exceeded its memory limit maxMemoryMb ${String(limits.maxMemoryMb)}: its processes used ${measured} MiB of resident memory`;
  }
  if (limits.maxCpuSeconds !== undefined && usage.cpuSeconds > limits.maxCpuSeconds) {
    return `exceeded its CPU limit maxCpuSeconds ${String(limits.maxCpuSeconds)}: its processes used ${roundedUp(usage.cpuSeconds, 2)} s of CPU time`;
  }
  return undefined;
}

/**
 * `value` with `decimals` decimals, rounded up: a measurement just over its limit must not read as
 * the limit itself (60.03 MiB over maxMemoryMb 60 is "60.1", not "60.0").
 */
function roundedUp(value: number, decimals: number): string {
  const scale = 10 ** decimals;
  // The tolerance keeps a product like 1.1 × 100 = 110.00000000000001 from rounding up to 111.
  return (Math.ceil(value * scale - 1e-9) / scale).toFixed(decimals);
}

/**
 * Measures group `pgid` every `LIMIT_SAMPLE_MS` until stopped, and calls `onBreach` once with the
 * sentence of the first limit exceeded. Does nothing when no limit is set. Returns the stop function.
 */
export function watchLimits(
  pgid: number,
  limits: ResourceLimits,
  onBreach: (reason: string) => void,
  sample: (pgid: number) => GroupUsage | undefined = groupUsage,
): () => void {
  if (limits.maxMemoryMb === undefined && limits.maxCpuSeconds === undefined) return () => undefined;
  const timer = setInterval(() => {
    const usage = sample(pgid);
    if (usage === undefined) return;
    const reason = limitBreach(limits, usage);
    if (reason === undefined) return;
    clearInterval(timer);
    onBreach(reason);
  }, LIMIT_SAMPLE_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
  };
}

/**
 * Restart decisions for one node (docs/architecture.md §Data plane): the node's `restart` policy,
 * exponential backoff, and a crash-loop limit after which the node stays in `error` while the rest of the
 * stream keeps running.
 */
import type { RestartPolicy } from '../../core/node.js';

export const SUPERVISION = {
  /** Delay before the first restart. */
  initialBackoffMs: 250,
  /** The delay doubles per recent failure up to this. */
  maxBackoffMs: 10_000,
  /** Failures older than this are forgotten. */
  windowMs: 60_000,
  /** This many failures within the window: the node is in a crash loop and stays in `error`. */
  maxFailures: 5,
} as const;

export type FailureKind = 'failure' | 'ended' | 'fatal';

export type RestartDecision =
  | { restart: true; delayMs: number }
  | { restart: false; reason: 'policy' | 'crash-loop' | 'fatal' };

/** Reads the policy from a node's config; anything else than the three values means the default. */
export function restartPolicyOf(config: Readonly<Record<string, unknown>> | undefined): RestartPolicy {
  const value = config?.restart;
  return value === 'no' || value === 'always' || value === 'on-failure' ? value : 'on-failure';
}

export class RestartTracker {
  private failures: number[] = [];

  constructor(
    private readonly policy: RestartPolicy,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Records an end of the node and decides whether (and after how long) it restarts. */
  onEnd(kind: FailureKind): RestartDecision {
    if (kind === 'fatal') return { restart: false, reason: 'fatal' };
    if (this.policy === 'no') return { restart: false, reason: 'policy' };
    if (kind === 'ended' && this.policy !== 'always') return { restart: false, reason: 'policy' };
    const now = this.now();
    this.failures = this.failures.filter((t) => now - t < SUPERVISION.windowMs);
    this.failures.push(now);
    const recent = this.failures.length;
    if (recent >= SUPERVISION.maxFailures) return { restart: false, reason: 'crash-loop' };
    const delayMs = Math.min(SUPERVISION.maxBackoffMs, SUPERVISION.initialBackoffMs * 2 ** (recent - 1));
    return { restart: true, delayMs };
  }

  /** Forgets past failures (a manual start or restart of the node). */
  reset(): void {
    this.failures = [];
  }
}

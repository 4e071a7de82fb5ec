/**
 * A limit on how often a socket answers unauthenticated datagrams, per peer and overall: token
 * buckets, each holding up to `burst` answers and refilled at `perSecond`. A UDP answer goes to
 * whatever source address the datagram claims, so without a limit a forged sender makes the
 * service send to a victim as fast as it is asked (docs/security.md §The maker's SDK on a network).
 */

export interface RateLimits {
  /** Answers to one peer: at most `burst` at once, then `perSecond`. */
  readonly peer: { readonly burst: number; readonly perSecond: number };
  /** Answers to all peers together. */
  readonly overall: { readonly burst: number; readonly perSecond: number };
  /** Peers remembered at most; the least recently seen is forgotten first. */
  readonly maxPeers: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  private readonly limits: RateLimits;
  private readonly now: () => number;
  private readonly peers = new Map<string, Bucket>();
  private readonly overall: Bucket;

  /** `now` is a monotonic clock in ms (tests hand a fixed one). */
  constructor(limits: RateLimits, now: () => number = () => performance.now()) {
    this.limits = limits;
    this.now = now;
    this.overall = { tokens: limits.overall.burst, at: now() };
  }

  /** Whether an answer to `peer` may be sent now; when it may, it is counted. */
  take(peer: string): boolean {
    const now = this.now();
    const known = this.peers.get(peer);
    const bucket = known ?? { tokens: this.limits.peer.burst, at: now };
    refill(bucket, now, this.limits.peer);
    refill(this.overall, now, this.limits.overall);
    // Re-inserted, so that the map's order is the order peers were last seen in.
    this.peers.delete(peer);
    this.peers.set(peer, bucket);
    if (this.peers.size > this.limits.maxPeers) {
      const oldest = this.peers.keys().next().value;
      if (oldest !== undefined) this.peers.delete(oldest);
    }
    if (bucket.tokens < 1 || this.overall.tokens < 1) return false;
    bucket.tokens -= 1;
    this.overall.tokens -= 1;
    return true;
  }
}

function refill(bucket: Bucket, now: number, rate: { burst: number; perSecond: number }): void {
  const elapsed = Math.max(0, now - bucket.at);
  bucket.tokens = Math.min(rate.burst, bucket.tokens + (elapsed * rate.perSecond) / 1000);
  bucket.at = now;
}

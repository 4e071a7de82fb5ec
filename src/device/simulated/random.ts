/**
 * A small seeded PRNG (sfc32, 128-bit state) with a normal deviate, so that the simulated headset
 * is deterministic under `--seed`. Each subsystem forks its own stream by label, so that reading
 * the IMU, say, never changes the EEG samples that follow.
 */

/** Hashes a string to 32 bits (FNV-1a), used to derive independent substreams from one seed. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  private spareNormal: number | undefined;
  readonly seed: number;

  constructor(seed: number, label = '') {
    this.seed = seed;
    this.a = hash32(`a:${seed}:${label}`);
    this.b = hash32(`b:${seed}:${label}`);
    this.c = hash32(`c:${seed}:${label}`);
    this.d = 1;
    // Discard the first outputs: sfc32 mixes its state during the first dozen rounds.
    for (let i = 0; i < 15; i++) this.next();
  }

  /** An independent stream for a subsystem, determined by this stream's seed and the label. */
  fork(label: string): Random {
    return new Random(this.seed, label);
  }

  /** A uniform deviate in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** A uniform deviate in [low, high). */
  uniform(low: number, high: number): number {
    return low + (high - low) * this.next();
  }

  /** A standard normal deviate (Box-Muller; the second value of each pair is kept for the next call). */
  normal(): number {
    const spare = this.spareNormal;
    if (spare !== undefined) {
      this.spareNormal = undefined;
      return spare;
    }
    let u = this.next();
    while (u <= 1e-12) u = this.next();
    const radius = Math.sqrt(-2 * Math.log(u));
    const angle = 2 * Math.PI * this.next();
    this.spareNormal = radius * Math.sin(angle);
    return radius * Math.cos(angle);
  }
}

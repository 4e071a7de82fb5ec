/**
 * What the simulated wearer looks at, and whether their eyes are closed: the simulator-only
 * control behind `POST /simulator/stimulus` (docs/devices.md §The simulated wearer), and the
 * visual responses it adds to the simulated EEG (eeg.ts), in µV at the electrodes.
 *
 * SSVEP: looking at a flicker of f Hz drives the visual cortex at f and its harmonics. The
 * response at O1/O2 is A·sin(2π·f·t + φ₁) + A/2·sin(2π·2f·t + φ₂) + A/4·sin(2π·3f·t + φ₃)
 * (harmonics at or above 0.45 × the sample rate left out), A = `amplitude` (default 3 µV, the upper end of a typical
 * SSVEP of 1 to 3 µV, so that two occipital electrodes show it), phases fixed per head. It starts `latency` after the request (drawn once per
 * head, 100 to 200 ms: the visual pathway's delay), rises over 300 ms (a raised-cosine ramp, as the
 * cortex entrains) and, when the wearer looks away, fades over 200 ms after the same latency. Its
 * topography falls off from the occipital electrodes (volume conduction): O1/O2 1, Pz 0.55,
 * P3/P4 0.5, T5/T6 0.4, Cz/C3/C4 0.12, the rest 0.05.
 *
 * Eyes closed: the posterior alpha of eeg.ts grows by EYES_CLOSED_GAIN (from its eyes-open 18 µV
 * peak at O1/O2 to about 40 µV, 25 µV RMS: the Berger effect), with the same latency and a 500 ms
 * ramp; opening the eyes brings it back. Both are functions of the sample's time on the device
 * clock and the time of the request, so the samples stay a function of the seed and the calls.
 */
import type { Random } from './random.js';

/** Relative SSVEP amplitude at each electrode (upper-case names). */
export const SSVEP_WEIGHT: Readonly<Record<string, number>> = {
  O1: 1,
  O2: 1,
  PZ: 0.55,
  P3: 0.5,
  P4: 0.5,
  T5: 0.4,
  T6: 0.4,
  CZ: 0.12,
  C3: 0.12,
  C4: 0.12,
};
export const SSVEP_ELSEWHERE = 0.05;
export const DEFAULT_SSVEP_AMPLITUDE = 3;
/** Amplitude of harmonic h relative to the fundamental: 1, 1/2, 1/4. */
export const HARMONIC_GAIN = [1, 0.5, 0.25] as const;
export const SSVEP_RISE_MS = 300;
export const SSVEP_FALL_MS = 200;
export const EYES_CLOSED_GAIN = 2.2;
export const EYES_RAMP_MS = 500;
/** Alpha's gain while the wearer attends a flicker (alpha blocking). */
export const ALPHA_BLOCKED = 0.4;
export const LATENCY_MS = [100, 200] as const;

export interface StimulusRequest {
  /** Flicker frequency looked at, Hz; null: none. */
  readonly frequency: number | null;
  /** Fundamental's peak at O1/O2, µV (default DEFAULT_SSVEP_AMPLITUDE). */
  readonly amplitude?: number;
}

export interface WearerState {
  readonly frequency: number | null;
  readonly amplitude: number;
  readonly eyes: 'open' | 'closed';
  /** The wearer's visual latency, ms. */
  readonly latencyMs: number;
}

/** A wearer model's responses at an instant (`WearerModel.snapshot`), as data a thread can be sent. */
export interface WearerSnapshot {
  readonly current: Flicker | undefined;
  readonly fading: Flicker | undefined;
  readonly alpha: Ramp;
  readonly eyes: 'open' | 'closed';
}

/** The simulated wearer's controls (present on the simulated headset only). */
export interface SimulatedWearer {
  /** Looks at a flicker (or at none) from now on. */
  lookAt(request: StimulusRequest): WearerState;
  /** Closes or opens the eyes from now on. */
  setEyes(eyes: 'open' | 'closed'): WearerState;
  state(): WearerState;
}

/** A response that ramps from `from` to `to` over `rampMs`, starting at `startMs`. */
export interface Ramp {
  startMs: number;
  rampMs: number;
  from: number;
  to: number;
}

function rampAt(ramp: Ramp, t: number): number {
  if (t <= ramp.startMs) return ramp.from;
  if (t >= ramp.startMs + ramp.rampMs) return ramp.to;
  const x = (t - ramp.startMs) / ramp.rampMs;
  return ramp.from + (ramp.to - ramp.from) * 0.5 * (1 - Math.cos(Math.PI * x));
}

export interface Flicker {
  frequency: number;
  amplitude: number;
  /** Envelope 0..1. */
  envelope: Ramp;
}

export class WearerModel implements SimulatedWearer {
  readonly latencyMs: number;
  private readonly phases: number[];
  /** The flicker now looked at (envelope rising or at 1), and the previous one fading out. */
  private current: Flicker | undefined;
  private fading: Flicker | undefined;
  private alpha: Ramp = { startMs: 0, rampMs: EYES_RAMP_MS, from: 1, to: 1 };
  private eyes: 'open' | 'closed' = 'open';

  constructor(
    random: Random,
    private readonly now: () => number,
  ) {
    this.latencyMs = random.uniform(LATENCY_MS[0], LATENCY_MS[1]);
    this.phases = HARMONIC_GAIN.map(() => random.uniform(0, 2 * Math.PI));
  }

  lookAt(request: StimulusRequest): WearerState {
    const start = this.now() + this.latencyMs;
    if (this.current !== undefined) {
      const level = rampAt(this.current.envelope, start);
      this.fading = {
        ...this.current,
        envelope: { startMs: start, rampMs: SSVEP_FALL_MS, from: level, to: 0 },
      };
    }
    this.current =
      request.frequency === null
        ? undefined
        : {
            frequency: request.frequency,
            amplitude: request.amplitude ?? DEFAULT_SSVEP_AMPLITUDE,
            envelope: { startMs: start, rampMs: SSVEP_RISE_MS, from: 0, to: 1 },
          };
    return this.state();
  }

  setEyes(eyes: 'open' | 'closed'): WearerState {
    const start = this.now() + this.latencyMs;
    this.alpha = {
      startMs: start,
      rampMs: EYES_RAMP_MS,
      from: rampAt(this.alpha, start),
      to: eyes === 'closed' ? EYES_CLOSED_GAIN : 1,
    };
    this.eyes = eyes;
    return this.state();
  }

  /** What the wearer's responses depend on besides the seed, for a copy in another thread. */
  snapshot(): WearerSnapshot {
    return structuredClone({
      current: this.current,
      fading: this.fading,
      alpha: this.alpha,
      eyes: this.eyes,
    });
  }

  /** Takes the responses of the wearer `snapshot` was made of (a model of the same seed). */
  restore(snapshot: WearerSnapshot): void {
    this.current = snapshot.current;
    this.fading = snapshot.fading;
    this.alpha = snapshot.alpha;
    this.eyes = snapshot.eyes;
  }

  state(): WearerState {
    return {
      frequency: this.current?.frequency ?? null,
      amplitude: this.current?.amplitude ?? DEFAULT_SSVEP_AMPLITUDE,
      eyes: this.eyes,
      latencyMs: this.latencyMs,
    };
  }

  /** The alpha rhythm's gain at time t (ms, device clock): 1 with eyes open. */
  alphaGain(t: number): number {
    const looking =
      this.current === undefined ? 1 - 0 : 1 - (1 - ALPHA_BLOCKED) * rampAt(this.current.envelope, t);
    const fading = this.fading === undefined ? 0 : (1 - ALPHA_BLOCKED) * rampAt(this.fading.envelope, t);
    return rampAt(this.alpha, t) * (looking - fading);
  }

  /** True when no SSVEP is present or ramping at or after t (the common case: nothing to add). */
  silentFrom(t: number): boolean {
    const ends = (f: Flicker | undefined) =>
      f === undefined || (f.envelope.to === 0 && t >= f.envelope.startMs + f.envelope.rampMs);
    return ends(this.current) && ends(this.fading);
  }

  /** The SSVEP at O1/O2 (weight 1) at time t (ms), at sample rate `rate`. */
  ssvep(t: number, rate: number): number {
    return this.flicker(this.current, t, rate) + this.flicker(this.fading, t, rate);
  }

  private flicker(f: Flicker | undefined, t: number, rate: number): number {
    if (f === undefined) return 0;
    const level = rampAt(f.envelope, t);
    if (level === 0) return 0;
    const seconds = t / 1000;
    let sum = 0;
    HARMONIC_GAIN.forEach((gain, k) => {
      const h = k + 1;
      if (h * f.frequency >= 0.45 * rate) return;
      sum += gain * Math.sin(2 * Math.PI * h * f.frequency * seconds + (this.phases[k] as number));
    });
    return level * f.amplitude * sum;
  }
}

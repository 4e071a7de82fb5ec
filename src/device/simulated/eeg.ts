/**
 * The simulated EEG at the electrodes, in µV, before the ADC.
 *
 * Per channel: a 1/f background (about 12 µV RMS), a posterior alpha rhythm near 10 Hz that waxes
 * and wanes, eye blinks strongest on FP1/FP2, and what poor contact adds: mains interference, noise
 * and slow drift, all growing with the electrode's impedance (plus a quarter of the CMS and DRL
 * impedances, through which the reference and the common-mode rejection work). An electrode off
 * the scalp couples little brain signal and shows what a floating input shows: mV of mains and
 * drift.
 *
 * What the wearer sees (wearer.ts, the simulator's `POST /simulator/stimulus`) adds to it: an SSVEP
 * at the flicker's frequency and harmonics over the occipital electrodes, and the larger alpha of
 * closed eyes. Without a request the samples are exactly those of the model above.
 *
 * The generator is a per-sample process driven by its own seeded random stream, so the samples
 * depend only on the seed, the sequence of `begin`/`fill` calls and the impedances, never on how
 * the caller's timers fall. Its cost is a few normal deviates per sample and channel (19 channels
 * at 16 kHz take a few percent of a core).
 */
import { EEG_ELECTRODES, type Electrode } from '../../core/electrodes.js';
import type { EegSignalSource, SignalContext } from '../signal-source.js';
import { prepareFastNormal, type Random } from './random.js';
import { SSVEP_ELSEWHERE, SSVEP_WEIGHT, type WearerModel } from './wearer.js';

/** Corner frequencies (Hz) of the equal-variance one-pole processes whose sum is the 1/f background. */
const BACKGROUND_CORNERS = [0.5, 1.5, 4.5, 13.5, 40] as const;
/** RMS (µV) of the background, before the per-channel spread of ±15 %. */
const BACKGROUND_RMS = 12;
/** Peak alpha amplitude (µV) at weight 1 (O1/O2) with the envelope at its mean. */
const ALPHA_AMPLITUDE = 18;

/** Alpha topography: occipital and parietal strongest, frontal poles weakest. */
const ALPHA_WEIGHT: Readonly<Record<string, number>> = {
  O1: 1,
  O2: 1,
  PZ: 0.85,
  P3: 0.8,
  P4: 0.8,
  T5: 0.6,
  T6: 0.6,
  CZ: 0.35,
  C3: 0.35,
  C4: 0.35,
  T3: 0.3,
  T4: 0.3,
  FZ: 0.2,
  F3: 0.2,
  F4: 0.2,
  F7: 0.15,
  F8: 0.15,
  FP1: 0.08,
  FP2: 0.08,
};

/** Blink topography: the eyes' dipole seen from the frontal poles, fading toward the back. */
const BLINK_WEIGHT: Readonly<Record<string, number>> = {
  FP1: 1,
  FP2: 1,
  FZ: 0.45,
  F3: 0.4,
  F4: 0.4,
  F7: 0.45,
  F8: 0.45,
  CZ: 0.12,
  C3: 0.12,
  C4: 0.12,
  T3: 0.1,
  T4: 0.1,
  PZ: 0.05,
  P3: 0.05,
  P4: 0.05,
  T5: 0.04,
  T6: 0.04,
  O1: 0.02,
  O2: 0.02,
};

/** Blinks: interval between blinks (s), rise and fall times (s), peak on FP1/FP2 (µV). */
const BLINK_INTERVAL = [2, 6] as const;
const BLINK_RISE = 0.1;
const BLINK_FALL = 0.25;
const BLINK_AMPLITUDE = [80, 130] as const;

/** Artefacts per kΩ of effective impedance: mains peak, white noise RMS and drift RMS (µV). */
const MAINS_PER_KOHM = 0.1;
const NOISE_FLOOR = 0.7;
const NOISE_PER_KOHM = 0.03;
const DRIFT_PER_KOHM = 0.2;
/** Caps that keep a floating input in the tens of mV. */
const ARTEFACT_CAP = 50_000;
/** Impedance (Ω) at which brain signal coupling has halved (input divider with the amplifier's bias network). */
const COUPLING_HALF_IMPEDANCE = 1_000_000;

export interface SimulatedEegOptions {
  /** Mains frequency in Hz (50 in Europe, 60 in the Americas). */
  readonly mainsFrequency?: number;
  /** What the wearer looks at and whether their eyes are closed (the simulated headset's). */
  readonly wearer?: WearerModel;
}

interface ChannelParams {
  readonly background: number;
  readonly alphaCos: number;
  readonly alphaSin: number;
}

export class SimulatedEegSource implements EegSignalSource {
  private readonly mainsFrequency: number;
  private readonly wearer: WearerModel | undefined;
  private readonly alphaFrequency: number;
  private readonly params: ChannelParams[];
  /** One-pole states: EEG channel index × BACKGROUND_CORNERS. */
  private readonly poles = new Float64Array(EEG_ELECTRODES.length * BACKGROUND_CORNERS.length);
  /** Per-sample scratch of one block: alpha sin, alpha cos, mains, blink, SSVEP at O1/O2. */
  private shared = new Float64Array(0);
  private readonly drift = new Float64Array(EEG_ELECTRODES.length);
  private alphaPhase = 0;
  private mainsPhase = 0;
  private alphaEnvelope = 0;
  /** Samples left until the next blink starts, and the running blink (samples since its start). */
  private untilBlink = 0;
  private blinkAge = -1;
  // A double from the start (NaN until the first blink sets it): a field that holds the small
  // integer 0 and later a fraction changes the object's hidden class, and V8 then throws away
  // fill()'s optimised code in the middle of a run (measured: a 16 kHz block took 5 to 7 times as
  // long for a while after the first blink, bench device.simulated-eeg.16000).
  private blinkPeak = Number.NaN;

  private sampleRate = 250;
  private columns: number[] = [];
  private poleA = new Float64Array(BACKGROUND_CORNERS.length);
  private poleB = new Float64Array(BACKGROUND_CORNERS.length);
  private driftA = 0;
  private driftB = 0;
  private envelopeA = 0;
  private envelopeB = 0;

  constructor(
    private readonly random: Random,
    options: SimulatedEegOptions = {},
  ) {
    this.mainsFrequency = options.mainsFrequency ?? 50;
    this.wearer = options.wearer;
    // Each head has its own individual alpha frequency.
    this.alphaFrequency = random.uniform(9.5, 10.5);
    this.params = EEG_ELECTRODES.map(() => {
      const offset = random.uniform(-0.3, 0.3);
      return {
        background: random.uniform(0.85, 1.15),
        alphaCos: Math.cos(offset),
        alphaSin: Math.sin(offset),
      };
    });
    this.untilBlink = Math.round(random.uniform(0.5, BLINK_INTERVAL[1]) * this.sampleRate);
  }

  begin(sampleRate: number, channels: readonly Electrode[]): void {
    prepareFastNormal();
    const scale = sampleRate / this.sampleRate;
    this.untilBlink = Math.round(this.untilBlink * scale);
    if (this.blinkAge >= 0) this.blinkAge = Math.round(this.blinkAge * scale);
    this.sampleRate = sampleRate;
    this.columns = channels.map((electrode) => {
      const index = EEG_ELECTRODES.indexOf(electrode);
      if (index < 0) throw new RangeError(`${electrode} has no EEG channel`);
      return index;
    });
    // One-pole lowpass y += (1-a)(x - y) driven so that each pole's variance is independent of the rate.
    const poleRms = BACKGROUND_RMS / Math.sqrt(BACKGROUND_CORNERS.length);
    BACKGROUND_CORNERS.forEach((corner, k) => {
      const a = Math.exp((-2 * Math.PI * corner) / sampleRate);
      this.poleA[k] = a;
      this.poleB[k] = poleRms * Math.sqrt(1 - a * a);
    });
    const driftA = Math.exp((-2 * Math.PI * 0.05) / sampleRate);
    this.driftA = driftA;
    this.driftB = Math.sqrt(1 - driftA * driftA);
    const envelopeA = Math.exp((-2 * Math.PI * 0.4) / sampleRate);
    this.envelopeA = envelopeA;
    this.envelopeB = Math.sqrt(1 - envelopeA * envelopeA);
  }

  fill(out: Float32Array, count: number, context: SignalContext): boolean {
    const random = this.random;
    const width = this.columns.length;
    const reference = 0.25 * (context.impedance('CMS') + context.impedance('DRL'));
    // Per-block channel parameters: the impedance changes over seconds, blocks last ~10 ms.
    const coupling = new Float64Array(width);
    const mains = new Float64Array(width);
    const noise = new Float64Array(width);
    const drift = new Float64Array(width);
    const alpha = new Float64Array(width);
    const blink = new Float64Array(width);
    const ssvep = new Float64Array(width);
    for (let c = 0; c < width; c++) {
      const electrode = EEG_ELECTRODES[this.columns[c] ?? 0] ?? 'CZ';
      const own = context.impedance(electrode);
      const effectiveKohm = (own + reference) / 1000;
      coupling[c] = 1 / (1 + own / COUPLING_HALF_IMPEDANCE);
      mains[c] = Math.min(ARTEFACT_CAP, MAINS_PER_KOHM * effectiveKohm);
      noise[c] = Math.min(ARTEFACT_CAP, NOISE_FLOOR + NOISE_PER_KOHM * effectiveKohm);
      drift[c] = Math.min(ARTEFACT_CAP, DRIFT_PER_KOHM * effectiveKohm);
      alpha[c] = ALPHA_AMPLITUDE * (ALPHA_WEIGHT[electrode] ?? 0);
      blink[c] = BLINK_WEIGHT[electrode] ?? 0;
      ssvep[c] = SSVEP_WEIGHT[electrode] ?? SSVEP_ELSEWHERE;
    }
    const rate = this.sampleRate;
    const alphaStep = (2 * Math.PI * this.alphaFrequency) / rate;
    const mainsStep = (2 * Math.PI * this.mainsFrequency) / rate;
    // The ADC's decimation filter removes what lies above Nyquist: keep the 3rd harmonic only below it.
    const thirdHarmonic = 3 * this.mainsFrequency < rate / 2 ? 0.25 : 0;

    // Waveforms shared by all channels, one value per sample.
    if (this.shared.length < count * 5) this.shared = new Float64Array(count * 5);
    const shared = this.shared;
    const wearer = this.wearer;
    const quiet = wearer === undefined || wearer.silentFrom(context.time);
    for (let i = 0; i < count; i++) {
      this.alphaPhase = (this.alphaPhase + alphaStep) % (2 * Math.PI);
      this.mainsPhase = (this.mainsPhase + mainsStep) % (2 * Math.PI);
      this.alphaEnvelope = this.envelopeA * this.alphaEnvelope + this.envelopeB * random.fastNormal();
      const t = context.time + (i * 1000) / rate;
      const envelope =
        Math.max(0, 1 + 0.5 * this.alphaEnvelope) * (wearer === undefined ? 1 : wearer.alphaGain(t));
      shared[5 * i] = Math.sin(this.alphaPhase) * envelope;
      shared[5 * i + 1] = Math.cos(this.alphaPhase) * envelope;
      shared[5 * i + 2] = Math.sin(this.mainsPhase) + thirdHarmonic * Math.sin(3 * this.mainsPhase);
      shared[5 * i + 3] = this.nextBlinkValue();
      shared[5 * i + 4] = wearer === undefined || quiet ? 0 : wearer.ssvep(t, rate);
    }

    // Channel by channel, so that each channel's filter states stay in locals through the block.
    const [a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0] = this.poleA;
    const [b0 = 0, b1 = 0, b2 = 0, b3 = 0, b4 = 0] = this.poleB;
    const driftA = this.driftA;
    const driftB = this.driftB;
    const poles = this.poles;
    for (let c = 0; c < width; c++) {
      const channel = this.columns[c] ?? 0;
      const params = this.params[channel];
      if (params === undefined) continue;
      const base = channel * 5;
      let p0 = poles[base] ?? 0;
      let p1 = poles[base + 1] ?? 0;
      let p2 = poles[base + 2] ?? 0;
      let p3 = poles[base + 3] ?? 0;
      let p4 = poles[base + 4] ?? 0;
      let driftState = this.drift[channel] ?? 0;
      const k = coupling[c] ?? 0;
      const backgroundGain = k * params.background;
      const alphaSinGain = k * (alpha[c] ?? 0) * params.alphaCos;
      const alphaCosGain = k * (alpha[c] ?? 0) * params.alphaSin;
      const blinkGain = k * (blink[c] ?? 0);
      const ssvepGain = k * (ssvep[c] ?? 0);
      const mainsGain = mains[c] ?? 0;
      const noiseGain = noise[c] ?? 0;
      const driftGain = drift[c] ?? 0;
      for (let i = 0; i < count; i++) {
        p0 = a0 * p0 + b0 * random.fastNormal();
        p1 = a1 * p1 + b1 * random.fastNormal();
        p2 = a2 * p2 + b2 * random.fastNormal();
        p3 = a3 * p3 + b3 * random.fastNormal();
        p4 = a4 * p4 + b4 * random.fastNormal();
        driftState = driftA * driftState + driftB * random.fastNormal();
        const j = 5 * i;
        out[i * width + c] =
          backgroundGain * (p0 + p1 + p2 + p3 + p4) +
          alphaSinGain * (shared[j] ?? 0) +
          alphaCosGain * (shared[j + 1] ?? 0) +
          mainsGain * (shared[j + 2] ?? 0) +
          blinkGain * (shared[j + 3] ?? 0) +
          noiseGain * random.fastNormal() +
          driftGain * driftState +
          ssvepGain * (shared[j + 4] ?? 0);
      }
      poles[base] = p0;
      poles[base + 1] = p1;
      poles[base + 2] = p2;
      poles[base + 3] = p3;
      poles[base + 4] = p4;
      this.drift[channel] = driftState;
    }
    return false;
  }

  /** The blink waveform at FP1/FP2 for the next sample (µV): a fast rise and a slower fall. */
  private nextBlinkValue(): number {
    const rate = this.sampleRate;
    if (this.blinkAge < 0) {
      this.untilBlink--;
      if (this.untilBlink > 0) return 0;
      this.blinkAge = 0;
      this.blinkPeak = this.random.uniform(BLINK_AMPLITUDE[0], BLINK_AMPLITUDE[1]);
      this.untilBlink = Math.round(this.random.uniform(BLINK_INTERVAL[0], BLINK_INTERVAL[1]) * rate);
    }
    const t = this.blinkAge / rate;
    this.blinkAge++;
    if (t < BLINK_RISE) return this.blinkPeak * 0.5 * (1 - Math.cos((Math.PI * t) / BLINK_RISE));
    const fall = t - BLINK_RISE;
    if (fall < BLINK_FALL) return this.blinkPeak * 0.5 * (1 + Math.cos((Math.PI * fall) / BLINK_FALL));
    this.blinkAge = -1;
    return 0;
  }
}

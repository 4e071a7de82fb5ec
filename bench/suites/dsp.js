/**
 * DSP benchmarks: the filter node's SosFilter against a naive per-sample biquad cascade, and the
 * eeg-source's Resampler against a naive filter-then-decimate FIR. Both run on the frame sizes
 * the runtime really sees (about 10 ms of samples per frame, as the generator and device emit).
 * Real-time factor = seconds of signal processed per second of CPU.
 */
import process from 'node:process';
import { designFilter, Resampler, SosFilter } from '../../dist/dsp/index.js';
import { FIRST_SLICE_SAMPLES } from '../../dist/streams/executables/filter.js';
import { SosL1Norm, sosL1Norm } from '../../dist/streams/executables/frame-range.js';
import { compare, sink } from '../lib/measure.js';
import { plainCascade } from '../lib/pipeline-floor.js';
import { result } from '../lib/result.js';
import { filterVsScipy } from './filter-vs-scipy.js';
import { spectralVsScipy } from './spectral-vs-scipy.js';
import { ssvepVsSklearn } from './ssvep-vs-sklearn.js';
import { EEG_ELECTRODES } from '../../dist/core/electrodes.js';
import { Random, SimulatedEegSource } from '../../dist/device/simulated/index.js';

const CHANNELS = 19;
/** The filter node's default band and the usual mains notch: order-4 band-pass → 4 sections + notch. */
const FILTER_SPEC = { highpass: 1, lowpass: 40, order: 4, notch: 50 };

/** Frame of `samples` × CHANNELS of a 10 Hz sine plus a little deterministic jitter. */
function signalBlock(samples, rate, offset = 0) {
  const data = new Float32Array(samples * CHANNELS);
  for (let i = 0; i < samples; i++) {
    const v = 50 * Math.sin((2 * Math.PI * 10 * (offset + i)) / rate);
    for (let c = 0; c < CHANNELS; c++) data[i * CHANNELS + c] = v + c * 0.01 + ((i * 7 + c) % 13) * 0.1;
  }
  return data;
}

/**
 * The reference a first implementation would write: for each sample, for each channel, for each
 * section, the same Direct Form II transposed recursion, coefficients and state read from arrays
 * on every step (bench/lib/pipeline-floor.js, shared with the cpu suite's floors).
 */
const naiveCascade = plainCascade;

async function filterVsNaive(rate) {
  const frameSamples = Math.max(1, Math.round(rate / 100)); // 10 ms frames
  const sos = designFilter(FILTER_SPEC, rate);
  const filter = new SosFilter(sos, CHANNELS);
  const naive = naiveCascade(sos, CHANNELS);
  const input = signalBlock(frameSamples, rate);
  const out = new Float32Array(input.length);
  const out2 = new Float32Array(input.length);
  const subject = (n) => {
    for (let k = 0; k < n; k++) filter.process(input, out);
    sink.value += out[0];
  };
  const reference = (n) => {
    for (let k = 0; k < n; k++) naive(input, out2);
    sink.value += out2[0];
  };
  const r = await compare(subject, reference, { maxMs: 4000 });
  const nsPerSecondOfData = (r.subjectNs * rate) / frameSamples;
  return result({
    id: `dsp.sosfilter.${rate}`,
    title: `SosFilter ${CHANNELS} ch, order-4 band-pass + notch (${sos.length / 6} sections), ${rate} Hz, ${frameSamples}-sample frames`,
    ratio: r.subjectNs / r.referenceNs > 0 ? r.ratio : Number.NaN,
    ratioOf: 'SosFilter CPU per frame ÷ naive per-sample cascade CPU per frame',
    // Per call SosFilter copies each channel out and back (one section at a time over the block):
    // a fixed cost that a 3-sample frame cannot amortise but a 160-sample frame does.
    max: rate >= 1000 ? 0.8 : 1.5,
    absolute: {
      nsPerFrame: r.subjectNs,
      naiveNsPerFrame: r.referenceNs,
      cpuMsPerSecondOfData: nsPerSecondOfData / 1e6,
      realTimeFactor: 1e9 / nsPerSecondOfData,
    },
  });
}

/** Tap count of the Resampler's prototype filter, by its documented rule (resample.ts). */
function prototypeLength(factor) {
  const transition = (Math.PI * 0.2) / factor;
  const minLength = Math.ceil((80 - 7.95) / (2.285 * transition)) + 1;
  const delay = Math.ceil(minLength / (2 * factor));
  return 2 * delay * factor + 1;
}

/**
 * The naive reference: the same length of FIR run at the input rate on every input sample (a
 * filter followed by keeping every M-th output), per channel. The history holds each sample twice
 * (at `pos` and `pos + length`), so every dot product reads one contiguous run: a fair, simple FIR.
 */
function naiveDecimator(factor, channels) {
  const length = prototypeLength(factor);
  const taps = new Float64Array(length).fill(1 / length);
  const history = new Float64Array(channels * 2 * length);
  let pos = 0;
  let phase = 0;
  return (input) => {
    const frames = input.length / channels;
    const out = new Float32Array(Math.ceil(frames / factor) * channels);
    let o = 0;
    for (let i = 0; i < frames; i++) {
      pos = pos === 0 ? length - 1 : pos - 1; // newest sample first
      for (let c = 0; c < channels; c++) {
        const row = c * 2 * length;
        const x = input[i * channels + c];
        history[row + pos] = x;
        history[row + pos + length] = x;
        let acc = 0;
        for (let k = 0; k < length; k++) acc += taps[k] * history[row + pos + k];
        if (phase === 0 && o < out.length) out[o++] = acc;
      }
      phase = (phase + 1) % factor;
    }
    return out;
  };
}

async function resamplerVsNaive(inRate, outRate) {
  const frameSamples = Math.round(inRate / 100);
  const factor = inRate / outRate;
  const resampler = new Resampler(inRate, outRate, CHANNELS);
  const naive = naiveDecimator(factor, CHANNELS);
  const input = signalBlock(frameSamples, inRate);
  const subject = (n) => {
    for (let k = 0; k < n; k++) sink.value += resampler.process(input).length;
  };
  const reference = (n) => {
    for (let k = 0; k < n; k++) sink.value += naive(input).length;
  };
  const r = await compare(subject, reference, { maxMs: 5000, rounds: 7 });
  const nsPerSecondOfData = (r.subjectNs * inRate) / frameSamples;
  return result({
    id: `dsp.resampler.${inRate}-${outRate}`,
    title: `Resampler ${inRate} → ${outRate} Hz, ${CHANNELS} ch, ${frameSamples}-sample frames (${prototypeLength(factor)}-tap prototype)`,
    ratio: r.ratio,
    ratioOf: 'Resampler CPU ÷ naive filter-then-decimate FIR CPU (same tap count)',
    // Polyphase computes only the kept outputs: ideally 1/M of the naive work.
    max: 2 / factor,
    absolute: {
      decimation: factor,
      nsPerFrame: r.subjectNs,
      naiveNsPerFrame: r.referenceNs,
      cpuMsPerSecondOfData: nsPerSecondOfData / 1e6,
      realTimeFactor: 1e9 / nsPerSecondOfData,
    },
  });
}

/**
 * How long a filter (re)design holds the stream's thread: the filter node designs its sections
 * and sums the first slice of their gain bound ‖h‖₁ (streams/executables/frame-range.ts) synchronously
 * when the first frame or a new rate arrives; the rest of the sum runs in 5 ms slices between
 * turns of the event loop. Compared with filtering one second of the same data, because it is a
 * stall of the worker: it must stay far below the runtime's 3 s heartbeat watchdog even when the
 * thread gets a small share of a loaded CPU. The whole sum's cost is reported beside it.
 */
async function designVsFiltering(rate) {
  const spec = { highpass: 1, lowpass: 40, order: 8, notch: 50 };
  const sos = designFilter(spec, rate);
  const filter = new SosFilter(sos, CHANNELS);
  const second = signalBlock(rate, rate);
  const out = new Float32Array(second.length);
  const r = await compare(
    (n) => {
      for (let k = 0; k < n; k++) {
        const norm = new SosL1Norm(designFilter(spec, rate));
        norm.advance(FIRST_SLICE_SAMPLES);
        sink.value += norm.value;
      }
    },
    (n) => {
      for (let k = 0; k < n; k++) filter.process(second, out);
      sink.value += out[0];
    },
    { rounds: 3, minRoundMs: 50, maxMs: 6000 },
  );
  return result({
    id: `dsp.filter-design.${rate}`,
    title: `filter node (re)design at ${rate} Hz, the part that holds the thread: designFilter + the first slice of ‖h‖₁, order-8 band-pass 1–40 Hz + notch`,
    ratio: r.ratio,
    ratioOf: `synchronous design CPU ÷ CPU of filtering 1 s of ${CHANNELS}-ch data with it`,
    // A design may hold the thread for a few seconds' worth of filtering, not more.
    max: 10,
    absolute: {
      synchronousDesignCpuMs: r.subjectNs / 1e6,
      filterOneSecondCpuMs: r.referenceNs / 1e6,
      wholeL1SumCpuMs: wholeSumMs(sos),
    },
  });
}

/** CPU ms of summing a design's whole ‖h‖₁ at once (done in slices by the filter node). */
function wholeSumMs(sos) {
  const started = process.cpuUsage();
  sink.value += sosL1Norm(sos);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}

/**
 * The simulated headset's EEG model: CPU to generate one second of 19 channels at 16 kHz, against
 * that second itself (it must run far faster than real time on the headset's shared cores).
 */
async function simulatedEeg() {
  const source = new SimulatedEegSource(new Random(9));
  source.begin(16000, EEG_ELECTRODES);
  const block = new Float32Array(160 * 19);
  const context = { time: 0, impedance: () => 5000 };
  const random = new Random(9);
  const r = await compare(
    (n) => {
      for (let k = 0; k < n; k++) source.fill(block, 160, context);
      sink.value += block[0];
    },
    // Anchor, in the same run: the Gaussian draws the model needs for a block (six per sample and
    // channel: its five background poles and the electrode's drift), into the same block. A CPU
    // busy for a block's duration was the anchor before; it made the ratio a figure of the
    // machine's speed of the day, which a shared machine changes by 2 to 3 times.
    (n) => {
      for (let k = 0; k < n; k++) {
        for (let i = 0; i < 160 * 19; i++) {
          let v = 0;
          for (let d = 0; d < 6; d++) v += random.fastNormal();
          block[i] = v;
        }
      }
      sink.value += block[0];
    },
    { rounds: 3, maxMs: 4000 },
  );
  return result({
    id: 'device.simulated-eeg.16000',
    title: 'simulated headset EEG model, 19 ch × 16 kHz, 10 ms blocks',
    ratio: r.ratio,
    ratioOf: 'CPU to generate a block ÷ CPU to draw its Gaussian numbers alone',
    max: 4,
    absolute: { cpuMsPerSecondOfData: (r.subjectNs * 100) / 1e6, realTimeFactor: 1e7 / r.subjectNs },
  });
}

/** Runs the DSP suite; returns its results. */
export async function runDsp(log) {
  const out = [];
  for (const rate of [250, 16000]) {
    out.push(await filterVsNaive(rate));
    log(out.at(-1));
  }
  for (const [inRate, outRate] of [
    [1000, 250],
    [16000, 250],
  ]) {
    out.push(await resamplerVsNaive(inRate, outRate));
    log(out.at(-1));
  }
  out.push(await designVsFiltering(16000));
  log(out.at(-1));
  out.push(await filterVsScipy());
  log(out.at(-1));
  for (const r of [...(await spectralVsScipy()), ...(await ssvepVsSklearn())]) {
    out.push(r);
    log(r);
  }
  out.push(await simulatedEeg());
  log(out.at(-1));
  return out;
}

/**
 * IMUs: the primary one and four nodes on the band. The head sways slowly (a few seeded
 * sinusoids of 0.03..0.3 Hz per axis: about ±3 mm and ±2°), the nodes move with the head plus a
 * little motion of their own, and every reading carries sensor noise (0.05 mm, 0.05° RMS).
 *
 * Like a real IMU, each one samples at its output data rate: a read answers the sample of the last
 * sample instant (motion evaluated at that instant, with that sample's noise), so two reads within
 * one sample period agree and a faster rate shows finer motion. Changing the rate restarts the
 * sample grid at the change.
 */
import type { DeviceClock } from '../clock.js';
import { IMU_DEFAULT_RATE, IMU_NODE_COUNT, IMU_RATES, type Imu, type ImuReading } from '../headset.js';
import { numberInRangeOrThrow, oneOfOrThrow } from '../arguments.js';
import type { Random } from './random.js';

const AXES = ['pos_x', 'pos_y', 'pos_z', 'roll', 'pitch', 'yaw'] as const;
/** Peak of each sway component: mm for positions, degrees for angles. */
const SWAY_POSITION = 1;
const SWAY_ANGLE = 0.7;
const NOISE_POSITION = 0.05;
const NOISE_ANGLE = 0.05;
/** Share of a node's motion that is its own rather than the head's. */
const NODE_OWN_MOTION = 0.2;

interface Sinusoid {
  readonly amplitude: number;
  readonly frequency: number;
  readonly phase: number;
}

type Sway = readonly (readonly Sinusoid[])[];

function makeSway(random: Random, scale: number): Sway {
  return AXES.map((axis) =>
    Array.from({ length: 3 }, () => ({
      amplitude: (axis.startsWith('pos') ? SWAY_POSITION : SWAY_ANGLE) * scale * random.uniform(0.5, 1),
      frequency: random.uniform(0.03, 0.3),
      phase: random.uniform(0, 2 * Math.PI),
    })),
  );
}

function evaluate(sway: Sway, seconds: number, axis: number): number {
  let value = 0;
  for (const s of sway[axis] ?? [])
    value += s.amplitude * Math.sin(2 * Math.PI * s.frequency * seconds + s.phase);
  return value;
}

/** The last sample an IMU produced: answered again until the next sample instant. */
interface Sample {
  readonly index: number;
  readonly reading: ImuReading;
}

export class SimulatedImu implements Imu {
  private readonly head: Sway;
  private readonly nodes: Sway[];
  private readonly origin: number;
  private hz: number = IMU_DEFAULT_RATE;
  /** Start of the current sample grid, ms of the device clock (the last rate change). */
  private gridStart: number;
  /** Per IMU (primary first, then the nodes): its last sample. */
  private readonly last: (Sample | undefined)[] = [];

  constructor(
    private readonly clock: DeviceClock,
    private readonly random: Random,
  ) {
    this.origin = clock.now();
    this.gridStart = this.origin;
    this.head = makeSway(random, 1);
    this.nodes = Array.from({ length: IMU_NODE_COUNT }, () => makeSway(random, NODE_OWN_MOTION));
  }

  primary(): ImuReading {
    return this.sample(0, undefined);
  }

  node(nodeIndex: number): ImuReading {
    const index = numberInRangeOrThrow(nodeIndex, 'nodeIndex', 0, IMU_NODE_COUNT - 1, { integer: true });
    return this.sample(index + 1, this.nodes[index]);
  }

  rate(): number {
    return this.hz;
  }

  setRate(hz: number): void {
    const rate = oneOfOrThrow(hz, IMU_RATES, 'rate', ' Hz');
    if (rate === this.hz) return;
    this.hz = rate;
    this.gridStart = this.clock.now();
    this.last.length = 0;
  }

  /** The sample of the last sample instant of IMU `slot`, made when first asked for. */
  private sample(slot: number, own: Sway | undefined): ImuReading {
    const index = Math.floor(((this.clock.now() - this.gridStart) * this.hz) / 1000);
    const last = this.last[slot];
    if (last?.index === index) return last.reading;
    const instant = this.gridStart + (index * 1000) / this.hz;
    const reading = this.read((instant - this.origin) / 1000, own);
    this.last[slot] = { index, reading };
    return reading;
  }

  private read(seconds: number, own: Sway | undefined): ImuReading {
    const values = AXES.map((axis, i) => {
      const noise = axis.startsWith('pos') ? NOISE_POSITION : NOISE_ANGLE;
      const value =
        evaluate(this.head, seconds, i) +
        (own === undefined ? 0 : evaluate(own, seconds, i)) +
        noise * this.random.normal();
      return Math.round(value * 1000) / 1000;
    });
    const [pos_x = 0, pos_y = 0, pos_z = 0, roll = 0, pitch = 0, yaw = 0] = values;
    return { pos_x, pos_y, pos_z, roll, pitch, yaw };
  }
}

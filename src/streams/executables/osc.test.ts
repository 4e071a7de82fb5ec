/**
 * The `osc` node through its real factory, decoded by OSC implementations independent of ours:
 * python3-liblo (every address, type tag and float32 value, and the time tags of the bundles) and
 * liblo-tools' oscdump (the time tags to the bit). Also: datagrams never exceed their bound, a
 * message too large for any datagram is counted and not sent, and the destination must be on the
 * outbound allow-list when the node starts.
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { Frame } from '../../core/frame.js';
import type { NodeInstance } from '../../core/node.js';
import { NodeConfigError } from '../runtime/node-errors.js';
import { outboundHosts } from '../../platform/security/outbound-hosts.js';
import { recordingContext } from '../../../test/sdk/fake-node-context.js';
import { libloReceiver, type OscReceiver, oscdumpReceiver } from '../../../test/support/osc-receiver.js';
import { OscPacker } from './osc-datagrams.js';
import { createOscOutput, OSC_BACKLOG_BYTES } from './osc.js';

const NTP_OFFSET = 2_208_988_800;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function frame(
  seq: number,
  timestamp: number,
  sampleRate: number,
  channels: string[],
  values: number[],
): Frame {
  return { seq, timestamp, sampleRate, channels, data: Float32Array.from(values) };
}

/** Values of every kind a float32 holds: fractions, large and tiny magnitudes, -0, NaN, ±Infinity. */
function values(count: number, seed: number): number[] {
  const special = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 1e-40, 3.4e38];
  let x = seed;
  return Array.from({ length: count }, (_, i) => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return i % 7 === 3 ? (special[i % special.length] as number) : (x / 2 ** 31 - 0.5) * 400;
  });
}

async function started(config: Record<string, unknown>) {
  const recorded = recordingContext(config);
  const metrics: Record<string, number> = {};
  const context = {
    ...recorded.context,
    countMetric(name: string, amount: number) {
      metrics[name] = (metrics[name] ?? 0) + amount;
    },
  };
  const node: NodeInstance = createOscOutput(context);
  await node.start();
  closers.push(() => node.stop());
  return { node, metrics, recorded };
}

async function receiver<T>(make: () => Promise<OscReceiver<T>>): Promise<OscReceiver<T>> {
  const r = await make();
  closers.push(() => r.close());
  return r;
}

/** A sample's time as NTP seconds. */
function ntpSeconds(f: Frame, row: number): number {
  return (f.timestamp + (row * 1000) / f.sampleRate) / 1000 + NTP_OFFSET;
}

describe('osc node, decoded by liblo', () => {
  test('mode channels, bundles: one message per channel and sample at its address, in bundles tagged with the sample times', async () => {
    const rx = await receiver(libloReceiver);
    // Small datagrams: frames are split over many, and a sample of five channels over two.
    const { node, metrics } = await started({ port: rx.port, maxDatagramBytes: 160 });
    const channels = ['Fp1', 'O1.alpha', 'score.12Hz', 'EXG Channel 3', 'µV#1'];
    const addresses = [
      '/headsetd/Fp1',
      '/headsetd/O1/alpha',
      '/headsetd/score/12Hz',
      '/headsetd/EXG_Channel_3',
      '/headsetd/_V_1',
    ];
    const frames = [
      frame(0, 1_764_400_000_123.25, 250, channels, values(5 * 7, 1)),
      frame(1, 1_764_400_000_151.25, 250, channels, values(5 * 3, 2)),
    ];
    for (const f of frames) node.onFrame?.('in', f);
    const got = await rx.waitFor(5 * 10);
    let k = 0;
    for (const f of frames) {
      for (let row = 0; row < f.data.length / 5; row++) {
        for (let c = 0; c < 5; c++, k++) {
          const m = got[k]!;
          expect(m.path).toBe(addresses[c]);
          expect(m.types).toBe('f');
          expect(Object.is(m.args[0], f.data[row * 5 + c])).toBe(true);
          // Two levels: the datagram's bundle, then the sample's.
          expect(m.tags).toHaveLength(2);
          expect(Math.abs(m.tags[1]! - ntpSeconds(f, row))).toBeLessThan(1e-6);
          expect(m.tags[0]!).toBeLessThanOrEqual(m.tags[1]! + 1e-9);
        }
      }
    }
    expect(got).toHaveLength(50);
    // Every counter is shown from the start, zeros included.
    expect(metrics).toMatchObject({ sendErrors: 0, datagramsDropped: 0, oversizeMessages: 0 });
    await expect.poll(() => metrics.datagramsSent).toBeGreaterThan(2);
  });

  test('mode samples, bundle off: one message per sample with every channel as a float, tagged immediately', async () => {
    const rx = await receiver(libloReceiver);
    const { node } = await started({ port: rx.port, mode: 'samples', bundle: false, address: '/eeg/raw' });
    const channels = Array.from({ length: 21 }, (_, i) => `ch${i + 1}`);
    const f = frame(0, 1_764_400_000_000, 500, channels, values(21 * 12, 3));
    node.onFrame?.('in', f);
    const got = await rx.waitFor(12);
    got.forEach((m, row) => {
      expect(m.path).toBe('/eeg/raw');
      expect(m.types).toBe('f'.repeat(21));
      m.args.forEach((v, c) => {
        expect(Object.is(v, f.data[row * 21 + c])).toBe(true);
      });
      // "Immediately" is the time tag 0.000000001 (2^-32 s): liblo hands it as about 2.3e-10 s.
      expect(m.tags).toHaveLength(1);
      expect(m.tags[0]!).toBeLessThan(1e-6);
    });
  });
});

test('oscdump reads each bundle time tag as the sample time in NTP, to the 2^-32 s', async () => {
  const rx = await receiver(oscdumpReceiver);
  const { node } = await started({ port: rx.port });
  // Quarter milliseconds are exact in binary, so the expected tags are exact integers below.
  const f = frame(0, 1_764_400_000_123.25, 2000, ['Cz', 'Pz'], values(2 * 5, 4));
  node.onFrame?.('in', f);
  const got = await rx.waitFor(10);
  const quarters = BigInt(f.timestamp * 4);
  got.forEach((m, k) => {
    const row = Math.floor(k / 2);
    // Sample time in quarter-ms: timestamp + row × 0.5 ms.
    const t = quarters + BigInt(row * 2);
    const seconds = t / 4000n + BigInt(NTP_OFFSET);
    const rest = t % 4000n;
    // round(rest / 4000 × 2^32), half up.
    const fraction = (rest * 2n ** 32n * 2n + 4000n) / 8000n;
    expect(m.tag).toBe(`${seconds.toString(16).padStart(8, '0')}.${fraction.toString(16).padStart(8, '0')}`);
    expect(m.path).toBe(k % 2 === 0 ? '/headsetd/Cz' : '/headsetd/Pz');
    expect(m.types).toBe('f');
  });
});

describe('datagram sizes', () => {
  test('no datagram exceeds maxDatagramBytes, whatever the mode and frame', () => {
    for (const mode of ['channels', 'samples'] as const) {
      for (const bundle of [true, false]) {
        for (const max of [128, 200, 1400]) {
          const packer = new OscPacker({ mode, bundle, address: '/headsetd', maxDatagramBytes: max });
          const channels = Array.from({ length: 21 }, (_, i) => `channel${i}.alpha`);
          const { datagrams, oversize } = packer.pack(frame(0, 1e12, 250, channels, values(21 * 40, 5)));
          for (const d of datagrams) expect(d.length).toBeLessThanOrEqual(max);
          // One channel's message always fits; a sample of 21 floats does not fit 128 bytes.
          if (mode === 'channels' || max >= 200) {
            expect(oversize).toBe(0);
            expect(datagrams.length).toBeGreaterThan(0);
          } else {
            expect(oversize).toBe(40);
          }
        }
      }
    }
  });

  test('a message larger than a datagram may be is counted and not sent', async () => {
    const rx = await receiver(libloReceiver);
    const { node, metrics } = await started({ port: rx.port, mode: 'samples', maxDatagramBytes: 128 });
    // 40 floats: 160 bytes of arguments alone.
    const wide = Array.from({ length: 40 }, (_, i) => `c${i}`);
    node.onFrame?.('in', frame(0, 1e12, 250, wide, values(40 * 3, 6)));
    node.onFrame?.('in', frame(1, 1e12 + 12, 250, ['a'], [7]));
    const [m] = await rx.waitFor(1);
    expect(m!.path).toBe('/headsetd');
    expect(m!.args).toEqual([7]);
    expect(metrics.oversizeMessages).toBe(3);
  });
});

test('beyond 1 MiB handed to the socket and not yet sent, datagrams are dropped and counted, never queued', async () => {
  const rx = await receiver(libloReceiver);
  const { node, metrics } = await started({ port: rx.port, mode: 'samples', maxDatagramBytes: 65507 });
  // 2 MiB of samples in one frame: every datagram is handed over before any send completes.
  const channels = Array.from({ length: 64 }, (_, i) => `c${i}`);
  const rows = 8192;
  const { datagrams } = new OscPacker({
    mode: 'samples',
    bundle: true,
    address: '/headsetd',
    maxDatagramBytes: 65507,
  }).pack(frame(0, 1e12, 2000, channels, new Array<number>(64 * rows).fill(1)));
  node.onFrame?.('in', frame(0, 1e12, 2000, channels, new Array<number>(64 * rows).fill(1)));
  const handed = Math.floor(OSC_BACKLOG_BYTES / datagrams[0]!.length);
  expect(metrics.datagramsDropped).toBe(datagrams.length - handed);
  await expect.poll(() => (metrics.datagramsSent ?? 0) + (metrics.sendErrors ?? 0)).toBe(handed);
});

describe('destination', () => {
  test('a host off the outbound allow-list fails the start, pointing at host', async () => {
    const recorded = recordingContext({ port: 9000, host: '127.0.0.2' });
    const node = createOscOutput({
      ...recorded.context,
      access: {
        token: undefined,
        allowedOrigins: [],
        allowedHosts: [],
        hostname: undefined,
        outboundHosts: outboundHosts([]),
      },
    });
    const error = await node.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NodeConfigError);
    expect((error as NodeConfigError).field).toBe('host');
    expect((error as Error).message).toMatch(/--pipe-allow-host/);
  });

  test('localhost is sent to 127.0.0.1, where an IPv4 receiver listens', async () => {
    const rx = await receiver(libloReceiver);
    const { node, recorded } = await started({ port: rx.port, host: 'localhost' });
    expect(recorded.info).toMatchObject({ host: 'localhost', address: '127.0.0.1' });
    node.onFrame?.('in', frame(0, 1e12, 250, ['Cz'], [42]));
    const [m] = await rx.waitFor(1);
    expect(m).toMatchObject({ path: '/headsetd/Cz', args: [42] });
  });

  test('a host the operator allowed starts, and sending with no receiver listening raises nothing', async () => {
    const recorded = recordingContext({ port: 9, host: '127.0.0.2' });
    const metrics: Record<string, number> = {};
    const node = createOscOutput({
      ...recorded.context,
      access: {
        token: undefined,
        allowedOrigins: [],
        allowedHosts: [],
        hostname: undefined,
        outboundHosts: outboundHosts(['127.0.0.2']),
      },
      countMetric(name, amount) {
        metrics[name] = (metrics[name] ?? 0) + amount;
      },
    });
    await node.start();
    closers.push(() => node.stop());
    node.onFrame?.('in', frame(0, 1e12, 250, ['Cz'], [1, 2, 3]));
    // Each datagram's send is reported; wait for it rather than for a time.
    await expect.poll(() => (metrics.datagramsSent ?? 0) + (metrics.sendErrors ?? 0)).toBe(1);
    expect(metrics.datagramsSent).toBe(1);
    expect(recorded.failures).toEqual([]);
  });
});

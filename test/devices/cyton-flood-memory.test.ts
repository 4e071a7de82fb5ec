/**
 * Memory after a garbage flood: a Cyton streaming into the live headset (as the service runs it)
 * takes 16 MiB of random garbage rich in headers and footers between its packets; afterwards the
 * heap, collected, is back within 10 % of what it was before, and what the driver keeps of the
 * flood is bounded: the parser's held bytes and text, the events it raised (one gap per burst at
 * most, never a run of made-up packets, restarts and discontinuities).
 *
 * Why the heap and not RSS: the process's resident size depends on when V8 and the allocator give
 * pages back, which they do lazily and differently on every run; the heap after a full collection
 * counts what is still referenced, which is what a leak or an unbounded queue is. Both the
 * collected heap (with `external`, the Buffers the serial port hands over) and the retained state
 * are asserted. Each burst is awaited until the port took it, so that the writer's queue is not
 * measured, and events are counted, not kept. Measured so, the driver and the headset kept
 * nothing of a flood even before: what a flood cost was downstream, the made-up packets' losses
 * (19 720 samples_lost events and as many discontinuities for this flood), each an event for every
 * client and an annotation queued in every recording; the counts below are what fails on that code.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterEach, expect, test } from 'vitest';
import { createCytonDriver } from '../../src/device/cyton/index.js';
import { LiveHeadset } from '../../src/device/live/live-headset.js';
import { openCytonPort } from '../../src/device/cyton/link.js';
import { CytonEmulator, randomGarbage } from '../support/cyton-emulator.js';
import { type PtyPair, ptyPair } from '../support/pty-pair.js';
import { eventually } from '../support/wait.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** The heap in use after full collections, with the memory of Buffers and typed arrays. */
async function collectedBytes(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

test('a 16 MiB garbage flood while streaming: the collected heap is back within 10 %, the retained state bounded', async () => {
  const pair: PtyPair = await ptyPair();
  cleanups.push(() => pair.kill());
  const boardLink = await openCytonPort(pair.board);
  cleanups.push(() => boardLink.close());
  const emulator = new CytonEmulator(boardLink);
  cleanups.push(() => {
    emulator.stop();
    return Promise.resolve();
  });
  const driver = createCytonDriver(`cyton:${pair.host}`, openCytonPort);
  await driver.open();
  const headset = new LiveHeadset(driver);
  cleanups.push(() => headset.close());
  let rows = 0;
  let frames = 0;
  headset.eeg.onFrame((frame) => {
    frames++;
    rows += frame.data.length / frame.channels.length;
  });
  // Counted, not kept: the test must not hold what it measures.
  const events = new Map<string, number>();
  headset.onEvent((event) => {
    const type = event.type === 'system' ? event.eventType : event.type;
    events.set(type, (events.get(type) ?? 0) + 1);
  });
  const raisedSoFar = (): number => [...events.values()].reduce((a, b) => a + b, 0);
  await headset.eeg.start('client');
  // Warm: every path of a stream with losses has run once before the baseline is taken.
  await eventually(() => rows >= 250, 20_000, '1 s of rows');
  emulator.garbage(randomGarbage(64 * 1024, 1, true));
  await eventually(() => rows >= 500, 20_000, 'rows after a first burst');
  const before = await collectedBytes();
  const eventsBefore = raisedSoFar();
  const lostBefore = events.get('samples_lost') ?? 0;

  const BURSTS = 256;
  // Each burst handed to the port before the next (so that what is measured after is what the
  // reader kept, not the writer's queue).
  for (let burst = 0; burst < BURSTS; burst++) {
    await emulator.flood(randomGarbage(64 * 1024, burst + 2, true));
    if (burst % 16 === 15) {
      const now = rows;
      await eventually(() => rows > now, 20_000, `rows after burst ${burst + 1}`);
    }
  }
  const mark = rows;
  await eventually(() => rows >= mark + 250, 20_000, '1 s of rows after the flood');
  const after = await collectedBytes();

  // What the driver and the headset keep of the flood: bounded, whatever its size.
  const counters = driver.counters();
  expect(counters.skippedBytes).toBeGreaterThanOrEqual(BURSTS * 64 * 1024);
  // At most one gap per burst, announced as lost samples; nothing else (no restart, no loss of the board).
  const raised = raisedSoFar() - eventsBefore;
  expect(raised, JSON.stringify([...events])).toBeLessThanOrEqual(BURSTS);
  expect((events.get('samples_lost') ?? 0) - lostBefore).toBe(raised);
  expect(frames).toBeGreaterThan(0);
  expect(after, `collected heap ${before} bytes before the flood, ${after} after`).toBeLessThanOrEqual(
    before * 1.1,
  );
}, 120_000);

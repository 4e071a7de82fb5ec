/**
 * The rate guard of the live headset, on a fake amplifier whose blocks are pushed by hand on a
 * clock moved by hand: a source that sends faster or slower than it declares is reported (event,
 * status, the next frame's annotation), its frames are never timed more than the tolerance after
 * they arrived nor before the frame before (across a reconnection too), and an honest source with
 * bursts is never touched.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { FakeLiveDriver } from '../../../test/support/fake-live-driver.js';
import type { Frame } from '../../core/frame.js';
import type { DeviceClock } from '../clock.js';
import type { DeviceEvent, SystemEvent } from '../events.js';
import { type LiveHeadset, openLiveHeadset } from './live-headset.js';
import { AHEAD_TOLERANCE_MS } from './rate-guard.js';

/** A clock that moves only when the test says. */
function handClock(): DeviceClock & { advance(ms: number): void } {
  let now = 1_700_000_000_000;
  return {
    now: () => now,
    wallNow: () => now,
    wallAt: (at) => at,
    setTimeout: () => 0,
    clearTimeout: () => undefined,
    advance: (ms) => {
      now += ms;
    },
  };
}

let device: LiveHeadset | undefined;
afterEach(async () => {
  await device?.close();
  device = undefined;
});

async function open(rate = 250) {
  const clock = handClock();
  const driver = new FakeLiveDriver({ rate, clock });
  device = await openLiveHeadset(driver, { clock });
  const frames: { frame: Frame; arrived: number }[] = [];
  const events: SystemEvent[] = [];
  device.eeg.onFrame((frame) => frames.push({ frame, arrived: clock.wallNow() }));
  device.onEvent((event: DeviceEvent) => {
    if (event.type === 'system') events.push(event);
  });
  await device.eeg.start('client');
  return { clock, driver, frames, events, device };
}

/** Pushes `seconds` of blocks of `rows` rows, sent at `actual` rows per second of the clock. */
function send(
  setup: { clock: ReturnType<typeof handClock>; driver: FakeLiveDriver },
  seconds: number,
  actual: number,
  rows: number,
): void {
  const blocks = Math.round((seconds * actual) / rows);
  for (let b = 0; b < blocks; b++) {
    setup.clock.advance((rows * 1000) / actual);
    setup.driver.push(rows);
  }
}

function expectTimesPossible(frames: readonly { frame: Frame; arrived: number }[]): void {
  for (let k = 0; k < frames.length; k++) {
    const { frame, arrived } = frames[k] as { frame: Frame; arrived: number };
    expect(frame.timestamp - arrived).toBeLessThanOrEqual(AHEAD_TOLERANCE_MS);
    if (k > 0)
      expect(frame.timestamp).toBeGreaterThanOrEqual((frames[k - 1] as { frame: Frame }).frame.timestamp);
  }
}

const rateEvents = (events: readonly SystemEvent[]) =>
  events.filter((e) => e.eventType.startsWith('rate_')).map((e) => [e.eventType, e.level]);

describe('the rate guard', () => {
  test('an honest source in bursts of 32 rows, for a minute: never reported, its times untouched', async () => {
    const setup = await open();
    send(setup, 60, 250, 32);
    expect(rateEvents(setup.events)).toEqual([]);
    expect(setup.device.status().rateMismatch).toBeUndefined();
    // Each frame at its first row's time, as the driver gave it.
    setup.frames.forEach(({ frame }, k) => {
      expect(frame.timestamp).toBe(setup.driver.rowTime(3 * k));
    });
    expect(setup.frames.some(({ frame }) => frame.annotation !== undefined)).toBe(false);
  });

  test('a source sending 8 times its declared 250 Hz: reported at once, annotated, degraded; its times held to its arrival', async () => {
    const setup = await open();
    send(setup, 10, 2000, 16);
    expect(rateEvents(setup.events)).toEqual([['rate_mismatch', 'warning']]);
    const message = setup.events.find((e) => e.eventType === 'rate_mismatch')?.message ?? '';
    expect(message).toMatch(
      /sends faster than the 250 Hz it declares: \d+ samples arrived in [\d.]+ s \(\d+ Hz\)/,
    );
    expect(setup.device.status().rateMismatch).toBe(message);
    // The frame that follows the report carries it, for recordings.
    const annotated = setup.frames.filter(({ frame }) => frame.annotation !== undefined);
    expect(annotated.map(({ frame }) => frame.annotation)).toEqual([message]);
    // Unguarded, the last frame would be 80 s after the first; it is at most a second after its arrival.
    expectTimesPossible(setup.frames);
    const last = setup.frames[setup.frames.length - 1] as { frame: Frame; arrived: number };
    expect(last.frame.timestamp - (setup.frames[0]?.frame.timestamp ?? 0)).toBeLessThan(
      11_000 + AHEAD_TOLERANCE_MS,
    );
    // Stopping ends the report.
    await setup.device.eeg.stop('client');
    expect(setup.device.status().rateMismatch).toBeUndefined();
  });

  test('a source sending 200 Hz for a declared 250 Hz: reported after the span measured, withdrawn once it keeps its rate', async () => {
    const setup = await open();
    send(setup, 12, 200, 10);
    expect(rateEvents(setup.events)).toEqual([['rate_mismatch', 'warning']]);
    expect(setup.device.status().rateMismatch).toMatch(/sends slower than the 250 Hz it declares/);
    send(setup, 21, 250, 10);
    expect(rateEvents(setup.events)).toEqual([
      ['rate_mismatch', 'warning'],
      ['rate_recovered', 'info'],
    ]);
    expect(setup.device.status().rateMismatch).toBeUndefined();
    expectTimesPossible(setup.frames);
  });

  test('a board sending 10 times its rate, then reconnecting with its time back at the present: frames never step back', async () => {
    const setup = await open();
    send(setup, 3, 2500, 25);
    const before = setup.frames.length;
    // The board's driver restarts its count at the present, as a reconnection does.
    setup.driver.dropLink();
    setup.clock.advance(500);
    await setup.driver.start();
    setup.driver.restoreLink();
    setup.driver.push(25, true);
    send(setup, 3, 2500, 25);
    expect(setup.frames.length).toBeGreaterThan(before);
    expect(setup.frames[before]?.frame.discontinuity).toBe(true);
    expectTimesPossible(setup.frames);
  });
});

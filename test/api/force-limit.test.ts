/**
 * The contact force never exceeds the safe limit, whatever a client sends: random sequences of
 * requests over every path that moves a motor (the reference motor routes, the guide routes and
 * their jobs, the peripheral routes, the debug command's fault register), interleaved with random
 * advances of the simulated headset's manual clock. The force of every electrode is checked after
 * each request, after every timer the device fires, and every 20 ms of device time in between;
 * the FORCE register is read through the debug command as a client would.
 *
 * The generator is seeded (fast-check, fixed seed), so a failure is reproduced by running again,
 * and fast-check shrinks it to a short sequence.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ELECTRODES } from '../../src/core/electrodes.js';
import { ManualClock } from '../../src/device/replay/manual-clock.js';
import type { TimerHandle } from '../../src/device/clock.js';
import { FORCE_LIMIT } from '../../src/device/simulated/contact.js';
import { type SystemApp, systemApp } from './system/support.js';

/** A manual clock that checks the invariant after every timer the device fires. */
class CheckedClock extends ManualClock {
  check: () => void = () => undefined;

  override setTimeout(callback: () => void, ms: number): TimerHandle {
    return super.setTimeout(() => {
      callback();
      this.check();
    }, ms);
  }
}

type Request = { method: 'POST'; url: string; payload: Record<string, unknown> };
type Step = { kind: 'request'; request: Request } | { kind: 'advance'; ms: number };

const electrode = fc.constantFrom(...ELECTRODES);
const index = fc.integer({ min: 0, max: ELECTRODES.length - 1 });
const steps = fc.double({ min: 0, max: 100, noNaN: true });
const post = (url: string, payload: Record<string, unknown>): Step => ({
  kind: 'request',
  request: { method: 'POST', url, payload },
});

const step: fc.Arbitrary<Step> = fc.oneof(
  // Reference motor routes.
  fc
    .array(
      fc.record({
        electrode,
        movement: fc.constantFrom('RELEASE', 'RETRACT', 'STOP', 'BRAKE'),
        displacement: fc.double({ min: 0.001, max: 100, noNaN: true }),
      }),
      { minLength: 1, maxLength: 6 },
    )
    .map((configuration) => post('/system/motors/position', { configuration })),
  fc.constantFrom('MIN', 'MAX').map((position) => post('/system/motors/position/reset', { position })),
  // Guide routes (the jobs run on while later steps are sent).
  fc
    .record({
      motor: electrode,
      action: fc.constantFrom('move', 'stop', 'brake', 'home'),
      position: steps,
    })
    .map(({ motor, action, position }) =>
      post('/motors/control', { motor, action, parameters: { position } }),
    ),
  fc
    .record({
      profile: fc.constantFrom('light', 'medium', 'firm'),
      electrodes: fc.array(electrode, { minLength: 1, maxLength: 4 }),
      press: fc.double({ min: 0, max: 15, noNaN: true }),
    })
    .map(({ profile, electrodes, press }) =>
      post('/motors/apply-pressure', {
        profile,
        electrodes,
        customization: { [electrodes[0] ?? 'CZ']: press },
      }),
    ),
  fc
    .record({
      electrodes: fc.array(electrode, { minLength: 1, maxLength: 4 }),
      action: fc.constantFrom('retract', 'release', 'seat'),
      amount: steps,
    })
    .map((body) => post('/electrodes/prepare', body)),
  fc
    .record({
      electrodes: fc.array(electrode, { minLength: 1, maxLength: 3 }),
      action: fc.constantFrom('increase_pressure', 'decrease_pressure', 'reseat'),
    })
    .map((body) => post('/electrodes/adjust', body)),
  // Peripheral routes.
  fc
    .array(fc.record({ id: index, position: steps }), { minLength: 1, maxLength: 6 })
    .map((motors) => post('/system/peripheral/motors/move', { motors })),
  // Debug command: inject or clear a motor fault (the one writable motor register).
  fc.record({ channel: index, value: fc.constantFrom(0, 1) }).map(({ channel, value }) =>
    post('/system/debug/command', {
      packetType: 1,
      cmdResp: 2,
      peripheral: 2,
      peripheralChannels: channel,
      parameter: [3],
      data: [value],
    }),
  ),
  // Time passes on the device.
  fc.integer({ min: 1, max: 4000 }).map((ms): Step => ({ kind: 'advance', ms })),
);

function checkForces(s: SystemApp, where: string): void {
  for (const e of ELECTRODES) {
    const force = s.device.simulation.force(e);
    if (force > FORCE_LIMIT) throw new Error(`${e} presses with ${force} N > ${FORCE_LIMIT} N ${where}`);
  }
}

async function forceRegisters(s: SystemApp): Promise<number[]> {
  const forces: number[] = [];
  for (let channel = 0; channel < ELECTRODES.length; channel++) {
    const answer = await s.app.inject({
      method: 'POST',
      url: '/system/debug/command',
      payload: {
        packetType: 1,
        cmdResp: 1,
        peripheral: 2,
        peripheralChannels: channel,
        parameter: [2, 1],
        data: [],
      },
    });
    forces.push(answer.json<{ response: { data: number[] } }>().response.data[0] ?? 0);
  }
  return forces;
}

describe('the contact-force limit', () => {
  it('holds at every step of random request sequences over every motor path', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 5, maxLength: 30 }),
        fc.constantFrom(0, 'scalp' as const, 60, 100),
        async (sequence, initialMotorPosition) => {
          const clock = new CheckedClock();
          const s = await systemApp({ device: { clock, initialMotorPosition } });
          clock.check = () => {
            checkForces(s, `after a device timer at ${clock.now()} ms`);
          };
          try {
            checkForces(s, 'at power-on');
            for (const [i, item] of sequence.entries()) {
              if (item.kind === 'request') {
                const answer = await s.app.inject(item.request);
                // Refusals (409 while busy or acquiring, 422) are fine; a 500 is not.
                expect(answer.statusCode, `${item.request.url}: ${answer.body}`).toBeLessThan(500);
                checkForces(s, `after step ${i} (${item.request.url})`);
              } else {
                for (let left = item.ms; left > 0; left -= 20) {
                  clock.advance(Math.min(20, left));
                  // Let the jobs' promise callbacks react to what the timers did.
                  await new Promise((resolve) => setImmediate(resolve));
                  checkForces(s, `at ${clock.now()} ms`);
                }
              }
            }
            for (const force of await forceRegisters(s))
              expect(force).toBeLessThanOrEqual(FORCE_LIMIT * 1000);
          } finally {
            await s.close();
          }
        },
      ),
      { seed: 20261126, numRuns: 15 },
    );
  }, 60_000);
});

/**
 * What every StreamRuntime must do, as the stream manager and the services rely on it: one list of
 * cases, run whole against the real runtime (worker threads) and against the tests' fake, so that
 * a control-plane test that passes on the fake means what it says on the real thing (in the manner
 * of Hono's shared router tests). Each case names the methods it covers and is checked to call
 * them (recorded-calls.ts); contract-coverage.test.ts checks that the cases together cover every
 * method of the interface.
 *
 * Left to the real runtime's own tests, because they are about sharing worker threads and child
 * processes the fake has none of: `stream_restarted` (the other streams of a hung worker,
 * test/e2e/runtime-pool), and the process groups `close` and `abort` end (runtime-orphans).
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { DeviceFrameSource } from '../../src/core/node.js';
import type { StreamRuntime } from '../../src/streams/runtime/stream-runtime.js';
import { recordCalls } from './recorded-calls.js';
import { ContractDevice, type RuntimeCase } from './runtime-case-helpers.js';
import { LIFECYCLE_CASES } from './runtime-cases-lifecycle.js';
import { MAIN_THREAD_CASES } from './runtime-cases-main-thread.js';

export type { RuntimeCase } from './runtime-case-helpers.js';

export interface RuntimeUnderTest {
  runtime: StreamRuntime;
  close(): Promise<void>;
}

/** What the contract hands each runtime it builds: the headset's EEG for eeg-source nodes. */
export interface RuntimeEnvironment {
  device: DeviceFrameSource;
}

/** Every case of the contract, in the order they run. */
export const RUNTIME_CASES: readonly RuntimeCase[] = [...LIFECYCLE_CASES, ...MAIN_THREAD_CASES];

export function runtimeContract(
  name: string,
  make: (environment: RuntimeEnvironment) => RuntimeUnderTest,
): void {
  describe(`StreamRuntime contract: ${name}`, () => {
    let subject: RuntimeUnderTest;
    let device: ContractDevice;
    const cleanups: (() => unknown)[] = [];

    beforeEach(() => {
      device = new ContractDevice();
      subject = make({ device });
    });
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
      await subject.close();
    });

    for (const contractCase of RUNTIME_CASES) {
      test(contractCase.title, async () => {
        const recorded = recordCalls(subject.runtime);
        await contractCase.run({ runtime: recorded.subject, device, cleanups });
        // An optional method the implementation lacks (abort) is not asked for.
        const owned = contractCase.covers.filter((m) => typeof subject.runtime[m] === 'function');
        expect(owned.filter((m) => !recorded.used.has(m))).toEqual([]);
      });
    }
  });
}

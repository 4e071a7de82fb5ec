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
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { DeviceFeed } from '../../src/core/node.js';
import type { Frame } from '../../src/core/frame.js';
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
  device: DeviceFeed;
}

/** Every case of the contract, in the order they run. */
export const RUNTIME_CASES: readonly RuntimeCase[] = [...LIFECYCLE_CASES, ...MAIN_THREAD_CASES];

/**
 * The device a shared runtime is built with: it hands each subscription to the device of the case
 * running now, so that every case sees only its own subscriptions.
 */
class CaseDevice implements DeviceFeed {
  current = new ContractDevice();

  open(...args: Parameters<DeviceFeed['open']>): ReturnType<DeviceFeed['open']> {
    return this.current.open(...args);
  }

  onFrame(listener: (frame: Frame) => void): () => void {
    return this.current.onFrame(listener);
  }
}

/** The cases that end their runtime get one of their own; the others share one. */
const endsRuntime = (c: RuntimeCase): boolean => c.covers.includes('close') || c.covers.includes('abort');

export function runtimeContract(
  name: string,
  make: (environment: RuntimeEnvironment) => RuntimeUnderTest,
): void {
  describe(`StreamRuntime contract: ${name}`, () => {
    // One runtime serves every case that does not end it, as a service's runtime serves stream
    // after stream: a real runtime's workers then boot once, not once per case. Each case stops
    // the streams it started (below), so none sees another's.
    const caseDevice = new CaseDevice();
    let shared: RuntimeUnderTest | undefined;
    let own: RuntimeUnderTest | undefined;
    const cleanups: (() => unknown)[] = [];
    const started = new Set<string>();

    beforeAll(() => {
      shared = make({ device: caseDevice });
    });
    afterAll(async () => {
      await shared?.close();
    });
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
      if (own !== undefined) {
        await own.close();
        own = undefined;
      }
      for (const id of started) {
        if (shared?.runtime.status(id) !== undefined) await shared.runtime.stop(id).catch(() => undefined);
        shared?.runtime.forget(id);
      }
      started.clear();
    });

    for (const contractCase of RUNTIME_CASES) {
      test(contractCase.title, async () => {
        const device = new ContractDevice();
        let subject: RuntimeUnderTest;
        if (endsRuntime(contractCase)) {
          own = make({ device });
          subject = own;
        } else {
          if (shared === undefined) throw new Error('the shared runtime was not made');
          caseDevice.current = device;
          subject = shared;
        }
        const runtime = subject.runtime;
        // Notes every stream the case starts, to stop it after the case.
        const shares = subject === shared;
        const stopStarted = async (): Promise<void> => {
          for (const id of started) {
            if (runtime.status(id) !== undefined) await runtime.stop(id).catch(() => undefined);
            runtime.forget(id);
          }
          started.clear();
        };
        const noted = new Proxy(runtime, {
          get(target, key) {
            // A case that shares the runtime and closes it in passing (a StreamManager's close, in
            // its cleanup) ends only its own streams; the cases about close have their own runtime.
            if (key === 'close' && shares) return stopStarted;
            if (key === 'start')
              return (stream: Parameters<StreamRuntime['start']>[0]) => {
                started.add(stream.id);
                return target.start(stream);
              };
            const value: unknown = Reflect.get(target, key, target);
            return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
          },
        });
        const recorded = recordCalls(noted);
        await contractCase.run({ runtime: recorded.subject, device, cleanups });
        // An optional method the implementation lacks (abort) is not asked for.
        const owned = contractCase.covers.filter((m) => typeof runtime[m] === 'function');
        expect(owned.filter((m) => !recorded.used.has(m))).toEqual([]);
      });
    }
  });
}

/** The StreamRuntime contract, run against the tests' fake: it must behave as the real one does. */
import { FakeRuntime } from '../support/fake-runtime.js';
import { runtimeContract } from './runtime-contract.js';

runtimeContract('FakeRuntime', ({ device }) => {
  const runtime = new FakeRuntime({ device });
  return { runtime, close: () => runtime.close() };
});

/** The StreamRuntime contract, run against the tests' fake: it must behave as the real one does. */
import { FakeRuntime } from '../support/fake-runtime.js';
import { runtimeContract } from './runtime-contract.js';

runtimeContract('FakeRuntime', () => ({ runtime: new FakeRuntime(), close: async () => undefined }));

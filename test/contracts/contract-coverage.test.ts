/**
 * The contract suites cover their whole interface: each method (and each member of each part of the
 * Headset) is covered by at least one case, read from the interface's source with the TypeScript
 * compiler. A method added to StreamRuntime or to Headset without a contract case fails here; that
 * each case calls what it claims is checked as it runs against every implementation.
 */
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { interfaceMembers } from './interface-members.js';
import { HEADSET_CASES } from './headset-contract.js';
import { RUNTIME_CASES } from './runtime-contract.js';

function source(relative: string): string {
  return fileURLToPath(new URL(`../../src/${relative}`, import.meta.url));
}

function uncovered(members: readonly string[], cases: readonly { covers: readonly string[] }[]): string[] {
  const covered = new Set(cases.flatMap((c) => c.covers));
  return members.filter((m) => !covered.has(m));
}

test('every StreamRuntime method has a case in the runtime contract', () => {
  const members = interfaceMembers(source('streams/runtime/stream-runtime.ts'), 'StreamRuntime');
  // Optional methods are members too.
  expect(members).toEqual(expect.arrayContaining(['start', 'onEvent', 'abort']));
  expect(uncovered(members, RUNTIME_CASES)).toEqual([]);
});

test('every member of every part of the Headset has a case in the Headset contract', () => {
  const members = interfaceMembers(source('device/headset.ts'), 'Headset');
  expect(members).toEqual(
    expect.arrayContaining(['clock', 'onEvent', 'close', 'eeg.start', 'leds.set', 'imu.node', 'bus.command']),
  );
  expect(uncovered(members, HEADSET_CASES)).toEqual([]);
});

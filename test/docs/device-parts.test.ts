/**
 * One of each for a device's parts and its acquisition, checked in the source: a missing part is
 * refused in one place (`requirePart`, device/capabilities.ts), never by a stand-in part that
 * throws, and who holds acquisition is kept by the one acquisition core (device/acquisition-core.ts),
 * whatever the source of its samples.
 */
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { expect, test } from 'vitest';
import { sourceFiles } from './import-graph.js';

const root = new URL('../../', import.meta.url).pathname;
const files = sourceFiles(resolve(root, 'src')).map((file) => ({
  name: relative(root, file),
  text: readFileSync(file, 'utf8'),
}));

function filesWith(pattern: RegExp): string[] {
  return files.filter((file) => pattern.test(file.text)).map((file) => file.name);
}

test('only device/capabilities.ts makes the not_supported refusal of a missing part', () => {
  expect(filesWith(/new DeviceNotSupportedError\b/)).toEqual(['src/device/capabilities.ts']);
});

test('only the acquisition core keeps who holds acquisition', () => {
  expect(filesWith(/new AcquisitionOwners\b/)).toEqual(['src/device/acquisition-core.ts']);
});

test("no device answers a capabilities list of its own: it is read from the device's parts", () => {
  expect(filesWith(/\bcapabilities\(\)\s*(:|\{)/)).toEqual([]);
});

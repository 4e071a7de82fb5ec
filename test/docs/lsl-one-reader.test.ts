/**
 * LSL is read in one place: the reader (src/lsl/reader.ts), with which the LSL device and the
 * `lsl-inlet` node both read. Nothing else opens an inlet's feed, measures the time correction,
 * times samples on the timeline or resolves streams, so no second copy of the resolve → read →
 * correct → recover loop can grow beside it.
 */
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { expect, test } from 'vitest';
import { importGraph, sourceFiles } from './import-graph.js';

const root = new URL('../../', import.meta.url).pathname;
const files = sourceFiles(resolve(root, 'src'));
const graph = importGraph(root, files);

/** The files of src/ that load `target` at run time. */
const importersOf = (target: string) =>
  [...graph].filter(([, targets]) => targets.includes(target)).map(([file]) => file);

test("only the reader loads the inlet's feed and the timeline; only the timeline the dejitter fit", () => {
  expect(importersOf('src/lsl/inlet.ts')).toEqual(['src/lsl/reader.ts']);
  expect(importersOf('src/lsl/timeline.ts')).toEqual(['src/lsl/reader.ts']);
  expect(importersOf('src/lsl/dejitter.ts')).toEqual(['src/lsl/timeline.ts']);
});

test('only the reader resolves streams', () => {
  const callers = files
    .filter((file) => readFileSync(file, 'utf8').includes('resolveStreams('))
    .map((file) => relative(root, file));
  expect(callers.sort()).toEqual(['src/lsl/reader.ts', 'src/lsl/resolver.ts']);
});

test('the LSL device and lsl-inlet both read with it', () => {
  const readers = importersOf('src/lsl/reader.ts').sort();
  expect(readers).toEqual(['src/device/lsl/lsl-driver.ts', 'src/streams/executables/lsl-inlet.ts']);
});

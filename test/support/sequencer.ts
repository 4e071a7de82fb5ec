/**
 * The order test files start in: the files of the isolated project (each in a fresh worker) before
 * those of the in-process project, and in each the kinds that wait longest on devices, processes
 * and sockets first (LSL, the serial device, end-to-end, contract suites), then the rest, each
 * group in Vitest's own order (its cached durations, longest first, or without a cache the larger
 * files first).
 *
 * Why the isolated files first: Vitest hands a worker that has loaded src/ on to the next file
 * only while the next file in the queue is of the in-process project too, so those files must
 * follow one another; one isolated file between them would make every worker load src/ again.
 *
 * Why the long kinds first: in a fresh clone Vitest knows no durations and starts larger files
 * first, and the LSL device suites are small files (a shared suite run against one liblsl each)
 * that take ~25 s: they started last and ran alone at the end, three workers waiting on two.
 * Measured under .ci/run: 239–247 s of wall time before, with the two LSL files finishing last.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const LONG_KINDS = [/^test\/lsl\//, /^test\/devices\//, /^test\/e2e\//, /^test\/contracts\//];

export default class LongKindsFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const group = (spec: TestSpecification): number => {
      const path = relative(spec.project.config.root, spec.moduleId).split('\\').join('/');
      const shared = spec.project.config.isolate ? 0 : 2;
      return shared + (LONG_KINDS.some((kind) => kind.test(path)) ? 0 : 1);
    };
    return ordered
      .map((spec, index) => ({ spec, index, group: group(spec) }))
      .sort((a, b) => a.group - b.group || a.index - b.index)
      .map(({ spec }) => spec);
  }
}

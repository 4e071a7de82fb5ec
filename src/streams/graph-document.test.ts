/**
 * Graph validation (docs/api.md §Validation): example-based regression tests, and property-based
 * tests with fast-check: random valid DAGs are accepted; each kind of injected defect is refused
 * with its code and a pointer to the right item; findCycle agrees with an independent topological sort.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NodeInput, PipeInput } from '../platform/schemas/stream.js';
import { findCycle, type GraphContext, graphIssues } from './graph-document.js';

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

// ---------------------------------------------------------------------------------------------
// Property-based tests.

type Role = 'source' | 'processor' | 'sink';

interface Dag {
  nodes: NodeInput[];
  pipes: PipeInput[];
  roles: Map<string, Role>;
}

/** A node of `role` with a random but consistent declaration (none, node type or meta.type). */
function nodeOf(id: string, role: Role, declaration: number): NodeInput {
  if (role === 'source') {
    const base = gen(id);
    return declaration === 1
      ? { ...base, type: 'EXECUTABLE_PRODUCER' }
      : declaration === 2
        ? { ...base, meta: { type: 'SOURCE' } }
        : base;
  }
  if (role === 'processor') {
    const base = filt(id);
    return declaration === 1
      ? { ...base, type: 'EXECUTABLE' }
      : declaration === 2
        ? { ...base, meta: { type: 'FILTER' } }
        : base;
  }
  const base = declaration === 0 ? log(id) : { id, executable: 'websocket', config: { port: 0 } };
  return declaration === 1
    ? { ...base, type: 'EXECUTABLE_CONSUMER' }
    : declaration === 2
      ? { ...base, meta: { type: 'OUTPUT' } }
      : base;
}

/**
 * Random valid DAGs: sources → processors → sinks, with random unique ids, random declarations,
 * edges only forward in a topological order that respects roles, nodes and pipes shuffled.
 */
const dagArbitrary: fc.Arbitrary<Dag> = fc
  .record({
    sources: fc.integer({ min: 1, max: 3 }),
    processors: fc.integer({ min: 0, max: 6 }),
    sinks: fc.integer({ min: 1, max: 3 }),
  })
  .chain(({ sources, processors, sinks }) => {
    const n = sources + processors + sinks;
    const roles: Role[] = [
      ...Array<Role>(sources).fill('source'),
      ...Array<Role>(processors).fill('processor'),
      ...Array<Role>(sinks).fill('sink'),
    ];
    // Allowed edges: forward in this order, never into a source, never out of a sink.
    const pairs: [number, number][] = [];
    for (let a = 0; a < n; a++) {
      for (let b = a + 1; b < n; b++) {
        if (roles[a] !== 'sink' && roles[b] !== 'source') pairs.push([a, b]);
      }
    }
    const id = fc.string({ minLength: 1, maxLength: 12 });
    return fc
      .record({
        nodeIds: fc.uniqueArray(id, { minLength: n, maxLength: n }),
        pipeIds: fc.uniqueArray(id, { minLength: pairs.length, maxLength: pairs.length }),
        chosen: fc.array(fc.boolean(), { minLength: pairs.length, maxLength: pairs.length }),
        declarations: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: n, maxLength: n }),
        nodeOrder: fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
        pipeSeed: fc.integer(),
      })
      .map(({ nodeIds, pipeIds, chosen, declarations, nodeOrder, pipeSeed }) => {
        const nodes = nodeOrder.map((i) => nodeOf(nodeIds[i]!, roles[i]!, declarations[i]!));
        const pipes = pairs
          .map(([a, b], k) => ({ k, pipe: pipe(pipeIds[k]!, nodeIds[a]!, nodeIds[b]!) }))
          .filter(({ k }) => chosen[k])
          // A deterministic shuffle from the seed, so pipe order is random too.
          .sort((x, y) => ((x.k * 7919 + pipeSeed) % 104729) - ((y.k * 7919 + pipeSeed) % 104729))
          .map(({ pipe: p }) => p);
        return { nodes, pipes, roles: new Map(nodeIds.map((nid, i) => [nid, roles[i]!])) };
      });
  });

/** A fresh id that no node or pipe of the graph uses. */
function freshId(dag: Dag, stem: string): string {
  const used = new Set([...dag.nodes.map((n) => n.id), ...dag.pipes.map((p) => p.id)]);
  let id = stem;
  while (used.has(id)) id += '_';
  return id;
}

function idsOf(dag: Dag, role: Role): string[] {
  return dag.nodes.filter((n) => dag.roles.get(n.id) === role).map((n) => n.id);
}

/** Independent acyclicity check: Kahn's topological sort. */
function isAcyclic(nodeIds: readonly string[], edges: readonly (readonly [string, string])[]): boolean {
  const indegree = new Map(nodeIds.map((id) => [id, 0]));
  for (const [, to] of edges) indegree.set(to, (indegree.get(to) ?? 0) + 1);
  const ready = nodeIds.filter((id) => indegree.get(id) === 0);
  let seen = 0;
  while (ready.length > 0) {
    const id = ready.pop()!;
    seen++;
    for (const [from, to] of edges) {
      if (from !== id) continue;
      const left = indegree.get(to)! - 1;
      indegree.set(to, left);
      if (left === 0) ready.push(to);
    }
  }
  return seen === nodeIds.length;
}

describe('graphIssues: properties', () => {
  it('accepts every valid DAG of built-ins', () => {
    fc.assert(
      fc.property(dagArbitrary, (dag) => {
        expect(graphIssues(dag.nodes, dag.pipes, CONTEXT)).toEqual([]);
      }),
    );
  });

  /** Asserts the defect gives exactly the expected issues (paths), all validation_failed. */
  function expectIssues(nodes: NodeInput[], pipes: PipeInput[], paths: string[], message?: RegExp) {
    const issues = graphIssues(nodes, pipes, CONTEXT);
    expect(issues.map((i) => i.path).sort()).toEqual([...paths].sort());
    for (const issue of issues) expect(issue.code).toBe('validation_failed');
    if (message !== undefined) expect(issues.map((i) => i.message).join('\n')).toMatch(message);
  }

  it('refuses a duplicate node id at the later node', () => {
    fc.assert(
      fc.property(dagArbitrary, fc.nat(), (dag, pick) => {
        const twin = dag.nodes[pick % dag.nodes.length]!;
        const nodes = [...dag.nodes, log(twin.id)];
        expectIssues(nodes, dag.pipes, [`/nodes/${dag.nodes.length}/id`], /used twice/);
      }),
    );
  });

  it('refuses a duplicate pipe id at the later pipe', () => {
    fc.assert(
      fc.property(dagArbitrary, fc.nat(), fc.nat(), (dag, pick, pickSink) => {
        // A new sink fed by a source: a valid edge whose only defect is its id.
        const sinkId = freshId(dag, 'newsink');
        const sources = idsOf(dag, 'source');
        const takenId = dag.pipes.length > 0 ? dag.pipes[pick % dag.pipes.length]!.id : undefined;
        fc.pre(takenId !== undefined);
        const m = dag.pipes.length;
        const pipes = [...dag.pipes, pipe(takenId, sources[pickSink % sources.length]!, sinkId)];
        expectIssues([...dag.nodes, log(sinkId)], pipes, [`/pipes/${m}/id`]);
      }),
    );
  });

  it('refuses a dangling reference at the pipe end that names nothing', () => {
    fc.assert(
      fc.property(dagArbitrary, fc.nat(), fc.boolean(), (dag, pick, atSource) => {
        const ghost = freshId(dag, 'ghost');
        const m = dag.pipes.length;
        const sinks = idsOf(dag, 'sink');
        const sources = idsOf(dag, 'source');
        const added = atSource
          ? pipe(freshId(dag, 'p'), ghost, sinks[pick % sinks.length]!)
          : pipe(freshId(dag, 'p'), sources[pick % sources.length]!, ghost);
        expectIssues(
          dag.nodes,
          [...dag.pipes, added],
          [`/pipes/${m}/${atSource ? 'source' : 'destination'}`],
          /names no node/,
        );
      }),
    );
  });

  it('refuses a self-loop at the pipe, whatever the node', () => {
    fc.assert(
      fc.property(dagArbitrary, fc.nat(), (dag, pick) => {
        const node = dag.nodes[pick % dag.nodes.length]!;
        const m = dag.pipes.length;
        expectIssues(
          dag.nodes,
          [...dag.pipes, pipe(freshId(dag, 'loop'), node.id, node.id)],
          [`/pipes/${m}`],
          /to itself/,
        );
      }),
    );
  });

  it('refuses a back edge that closes a cycle, at the new pipe, naming a real cycle through it', () => {
    fc.assert(
      fc.property(dagArbitrary, fc.nat(), (dag, pick) => {
        // A back edge b → a over an existing pipe a → b between processors: always a cycle, and
        // roles allow it, so the cycle is the only defect.
        const between = dag.pipes.filter(
          (p) => dag.roles.get(p.source) === 'processor' && dag.roles.get(p.destination!) === 'processor',
        );
        fc.pre(between.length > 0);
        const forward = between[pick % between.length]!;
        const back = pipe(freshId(dag, 'back'), forward.destination!, forward.source);
        const pipes = [...dag.pipes, back];
        const issues = graphIssues(dag.nodes, pipes, CONTEXT);
        expect(issues).toHaveLength(1);
        expect(issues[0]!.path).toBe(`/pipes/${dag.pipes.length}`);
        const cycle = /a cycle: (.*); a stream/.exec(issues[0]!.message)![1]!.split(' → ');
        const edges = new Set(pipes.map((p) => JSON.stringify([p.source, p.destination])));
        expect(cycle[0]).toBe(cycle.at(-1));
        for (let k = 0; k + 1 < cycle.length; k++)
          expect(edges.has(JSON.stringify([cycle[k], cycle[k + 1]]))).toBe(true);
        expect(cycle.join('\u0000')).toContain(`${back.source}\u0000${back.destination}`);
      }),
    );
  });

  it('refuses a duplicate pipe (same ends and ports, new id) at the later pipe, naming its twin', () => {
    fc.assert(
      fc.property(dagArbitrary, fc.nat(), fc.boolean(), (dag, pick, explicitPorts) => {
        fc.pre(dag.pipes.length > 0);
        const twin = dag.pipes[pick % dag.pipes.length]!;
        const copy: PipeInput = { ...twin, id: freshId(dag, 'copy') };
        if (explicitPorts) Object.assign(copy, { sourcePort: 'out', targetPort: 'in' });
        expectIssues(
          dag.nodes,
          [...dag.pipes, copy],
          [`/pipes/${dag.pipes.length}`],
          new RegExp(`repeats pipe '${twin.id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}'`),
        );
      }),
    );
  });

  it('refuses role violations at the offending pipe end', () => {
    fc.assert(
      fc.property(dagArbitrary, fc.nat(), fc.integer({ min: 0, max: 3 }), (dag, pick, kind) => {
        const m = dag.pipes.length;
        const fresh = freshId(dag, 'new');
        const p = freshId(dag, 'p');
        const feeders = [...idsOf(dag, 'source'), ...idsOf(dag, 'processor')];
        const takers = [...idsOf(dag, 'processor'), ...idsOf(dag, 'sink')];
        const feeder = feeders[pick % feeders.length]!;
        const taker = takers[pick % takers.length]!;
        switch (kind) {
          case 0: // a built-in source given an input
            expectIssues(
              [...dag.nodes, gen(fresh)],
              [...dag.pipes, pipe(p, feeder, fresh)],
              [`/pipes/${m}/destination`],
            );
            break;
          case 1: // a built-in sink given an output
            expectIssues(
              [...dag.nodes, log(fresh)],
              [...dag.pipes, pipe(p, fresh, taker)],
              [`/pipes/${m}/source`],
            );
            break;
          case 2: // a node declared a producer given an input
            expectIssues(
              [...dag.nodes, { ...filt(fresh), meta: { type: 'SOURCE' } }],
              [...dag.pipes, pipe(p, feeder, fresh)],
              [`/pipes/${m}/destination`],
              /meta\.type SOURCE/,
            );
            break;
          default: // a node declared a consumer given an output
            expectIssues(
              [...dag.nodes, { ...filt(fresh), type: 'EXECUTABLE_CONSUMER' }],
              [...dag.pipes, pipe(p, fresh, taker)],
              [`/pipes/${m}/source`],
              /EXECUTABLE_CONSUMER/,
            );
        }
      }),
    );
  });
});

describe('findCycle: properties', () => {
  const graphArbitrary = fc.integer({ min: 1, max: 8 }).chain((n) =>
    fc.record({
      n: fc.constant(n),
      edges: fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 3 * n }),
    }),
  );

  it('returns a real simple cycle exactly when a topological sort fails', () => {
    fc.assert(
      fc.property(graphArbitrary, ({ n, edges }) => {
        const ids = [...Array(n).keys()].map((i) => `n${i}`);
        const named = edges.map(([a, b]) => [`n${a}`, `n${b}`] as const);
        const cycle = findCycle(ids, named);
        if (isAcyclic(ids, named)) {
          expect(cycle).toBeUndefined();
          return;
        }
        expect(cycle).toBeDefined();
        const c = cycle!;
        expect(c.length).toBeGreaterThanOrEqual(2);
        expect(c[0]).toBe(c.at(-1));
        // Simple: no node twice except the closing repeat.
        expect(new Set(c.slice(0, -1)).size).toBe(c.length - 1);
        const has = new Set(named.map((e) => JSON.stringify(e)));
        for (let k = 0; k + 1 < c.length; k++) expect(has.has(JSON.stringify([c[k], c[k + 1]]))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('graphIssues reports a cycle among filters exactly when one exists, at a pipe on it', () => {
    fc.assert(
      fc.property(graphArbitrary, ({ n, edges }) => {
        const ids = [...Array(n).keys()].map((i) => `f${i}`);
        // Filters take and give frames: only self-loops, duplicates and cycles can be wrong.
        const unique = [
          ...new Map(edges.filter(([a, b]) => a !== b).map(([a, b]) => [`${a}>${b}`, [a, b]])).values(),
        ];
        const pipes = unique.map(([a, b], k) => pipe(`p${k}`, `f${a}`, `f${b}`));
        const issues = graphIssues(ids.map(filt), pipes, CONTEXT);
        const acyclic = isAcyclic(
          ids,
          pipes.map((p) => [p.source, p.destination!] as const),
        );
        expect(issues.length).toBe(acyclic ? 0 : 1);
        if (!acyclic) {
          const index = Number(/^\/pipes\/(\d+)$/.exec(issues[0]!.path)![1]);
          const blamed = pipes[index]!;
          const cycle = /a cycle: (.*); a stream/.exec(issues[0]!.message)![1]!.split(' → ');
          expect(cycle.join(' ')).toContain(`${blamed.source} ${blamed.destination}`);
        }
      }),
      { numRuns: 300 },
    );
  });
});

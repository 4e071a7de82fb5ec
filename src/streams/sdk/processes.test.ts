/**
 * The SDKs as real processes: every node exits at stdin's end-of-file (the rule that keeps nodes
 * from outliving the service), Python's details (NaN, threads), and the SDK-free node of
 * docs/node-protocol.md §9.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { childEnvironment } from '../runtime/external/child-env.js';
import { createExternalNode } from '../runtime/external/process-node.js';
import type { Frame } from '../../core/frame.js';
import type { NodeInstance } from '../../core/node.js';
import { processAlive, recordingContext } from '../../../test/sdk/fake-node-context.js';
import { eventually } from '../../../test/support/wait.js';

const example = (name: string): string =>
  fileURLToPath(new URL(`../../../examples/nodes/${name}`, import.meta.url));
const PYTHON = '/usr/bin/python3';

/** Frames with awkward content: unicode names, NaN, extremes of float32, empty frames, flags. */
const frameArb: fc.Arbitrary<Frame> = fc
  .record({
    seq: fc.nat(),
    timestamp: fc.double({ min: 0, max: 4e12, noNaN: true }),
    sampleRate: fc.double({ min: 0.01, max: 20_000, noNaN: true }),
    channels: fc.array(fc.string({ minLength: 1, maxLength: 6, unit: 'grapheme' }), {
      minLength: 1,
      maxLength: 4,
    }),
    rows: fc.nat({ max: 5 }),
    values: fc.array(fc.float({ noDefaultInfinity: true }), { minLength: 20, maxLength: 20 }),
    discontinuity: fc.boolean(),
  })
  .map(({ seq, timestamp, sampleRate, channels, rows, values, discontinuity }) => {
    const data = new Float32Array(rows * channels.length);
    for (let i = 0; i < data.length; i += 1) {
      const value = values[i % values.length] ?? 0;
      data[i] = Object.is(value, -0) ? 0 : value;
    }
    return { seq, timestamp, sampleRate, channels, data, ...(discontinuity ? { discontinuity: true } : {}) };
  });

const running: NodeInstance[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((node) => node.stop()));
});

describe.each([
  ['JavaScript', [process.execPath, example('moving-average.mjs')]],
  ['Python', [PYTHON, example('moving_average.py')]],
] as const)('a %s node', (_language, argv) => {
  it.each(['ndjson', 'binary'] as const)('exits with status 0 when stdin ends (%s)', async (encoding) => {
    const child = spawn(argv[0], argv.slice(1), {
      env: childEnvironment({ streamId: 's', nodeId: 'n', encoding }),
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    // The parent goes away without a word: no config, no stop message, just EOF.
    child.stdin.end();
    expect(await exited).toBe(0);
  });
});

describe('the environment of a node', () => {
  it('keeps Python from writing bytecode beside the SDK', () => {
    expect(childEnvironment({ streamId: 's', nodeId: 'n', encoding: 'ndjson' })).toMatchObject({
      PYTHONDONTWRITEBYTECODE: '1',
    });
  });
});

describe('the Python SDK', () => {
  it('exits at EOF even while a thread of the node still runs', async () => {
    const script = [
      'import threading, time, sys',
      'from headsetd_node import Node, Frame',
      'node = Node()',
      'def produce():',
      '    while True:',
      "        node.send('out', Frame(['a'], [[1.0]], 10))",
      '        time.sleep(0.01)',
      '@node.on_start',
      'def start(config):',
      '    threading.Thread(target=produce).start()',
      'node.run()',
    ].join('\n');
    const recorder = recordingContext();
    // A grace longer than the test's timeout: a node that did not leave on the stop message itself
    // (and waited for SIGTERM) would make this test time out.
    const node = createExternalNode(recorder.context, [PYTHON, '-c', script], { stopGraceMs: 120_000 });
    running.push(node);
    await node.start();
    await eventually(() => recorder.emitted.length >= 3, 10_000, 'frames from the thread');
    const pid = recorder.info.pid as number;
    await node.stop();
    expect(processAlive(pid)).toBe(false);
    expect(recorder.emitted.map((e) => e.frame.seq).slice(0, 3)).toEqual([0, 1, 2]);
  });

  it('writes NaN as null in NDJSON, read back as NaN', async () => {
    const script = [
      'from headsetd_node import Node',
      'node = Node()',
      '@node.on_data',
      'def on_data(port, frame):',
      "    node.send('out', frame.like([[float('nan'), row[0]] for row in frame.data], channels=['x', 'y']))",
      'node.run()',
    ].join('\n');
    const recorder = recordingContext();
    const node = createExternalNode(recorder.context, [PYTHON, '-c', script]);
    running.push(node);
    await node.start();
    node.onFrame?.('in', {
      seq: 0,
      timestamp: 1,
      sampleRate: 2,
      channels: ['a'],
      data: Float32Array.of(0.5),
    });
    await eventually(() => recorder.emitted.length === 1, 10_000, 'the frame');
    expect(Array.from(recorder.emitted[0]!.frame.data)).toEqual([Number.NaN, 0.5]);
  });
});

describe.each(['ndjson', 'binary'] as const)('the Python SDK over %s', (protocol) => {
  it("passes any frame through unchanged (its codec agrees with headsetd's)", async () => {
    const script = [
      'from headsetd_node import Node',
      'node = Node()',
      '@node.on_data',
      'def on_data(port, frame):',
      "    node.send('echo-' + port, frame)",
      'node.run()',
    ].join('\n');
    const recorder = recordingContext({ protocol });
    const node = createExternalNode(recorder.context, [PYTHON, '-c', script]);
    running.push(node);
    await node.start();
    const sent: Frame[] = fc.sample(frameArb, { numRuns: 40, seed: 42 });
    sent.forEach((frame, i) => node.onFrame?.(`p${i % 3}`, frame));
    await eventually(() => recorder.emitted.length === sent.length, 10_000, 'every frame echoed');
    recorder.emitted.forEach(({ port, frame }, i) => {
      expect(port).toBe(`echo-p${i % 3}`);
      const { createdAt: _createdAt, ...echoed } = frame;
      expect(echoed).toEqual(sent[i]);
    });
  });
});

describe('a node without an SDK', () => {
  it('works as docs/node-protocol.md §9 shows it', async () => {
    const doc = readFileSync(
      fileURLToPath(new URL('../../../docs/node-protocol.md', import.meta.url)),
      'utf8',
    );
    const section = doc.slice(doc.indexOf('## 9.'));
    const code = /```python\n([\s\S]*?)```/.exec(section)?.[1];
    expect(code).toBeDefined();
    const recorder = recordingContext();
    const node = createExternalNode(recorder.context, [PYTHON, '-c', code!]);
    running.push(node);
    await node.start();
    const frame = {
      seq: 4,
      timestamp: 9,
      sampleRate: 100,
      channels: ['Fz'],
      data: Float32Array.of(1.25, -3),
    };
    node.onFrame?.('in', frame);
    await eventually(() => recorder.emitted.length === 1, 10_000, 'the frame passed through');
    expect(recorder.emitted[0]).toMatchObject({
      port: 'out',
      frame: { seq: 4, timestamp: 9, channels: ['Fz'] },
    });
    expect(Array.from(recorder.emitted[0]!.frame.data)).toEqual([1.25, -3]);
  });
});

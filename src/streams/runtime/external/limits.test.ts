/**
 * Resource limits of external nodes (maxMemoryMb, maxCpuSeconds): real processes that allocate
 * memory or spin, measured over their whole process group, killed and reported as a fatal failure
 * naming the limit and the measured value.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { NodeInstance } from '../../../core/node.js';
import { FatalNodeError } from '../node-errors.js';
import { processAlive, recordingContext } from '../../../../test/sdk/fake-node-context.js';
import { createExternalNode } from './process-node.js';
import { limitBreach, limitsOf, watchLimits } from './resource-limits.js';
import { eventually } from '../../../../test/support/wait.js';

const PYTHON = '/usr/bin/python3';

const running: NodeInstance[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((node) => node.stop()));
});

/** A Python node that, once started, runs `children` (Python sources) as processes of its group. */
function nodeWithChildren(children: string[]): string[] {
  const spawns = children
    .map((code) => `subprocess.Popen([sys.executable, '-c', ${JSON.stringify(code)}])`)
    .join('\n    ');
  return [
    PYTHON,
    '-c',
    `import subprocess, sys\nfrom headsetd_node import Node\nnode = Node()\n@node.on_start\ndef start(config):\n    ${spawns}\n    print('children started', file=sys.stderr)\nnode.run()\n`,
  ];
}

/** Python source that holds `mib` MiB of written (so resident) memory, then waits. */
function holding(mib: number): string {
  return `import time\nblock = b'x' * (${String(mib)} * 1024 * 1024)\ntime.sleep(120)`;
}

function launch(argv: string[], config: Record<string, unknown>) {
  const recorder = recordingContext(config);
  const node = createExternalNode(recorder.context, argv, {});
  running.push(node);
  return { node, ...recorder };
}

describe('resource limits of an external node', () => {
  it('kills a group whose processes together hold more memory than maxMemoryMb, reporting the measured value', async () => {
    // Each child alone stays under the limit; the group does not.
    const { node, failures, info } = launch(nodeWithChildren([holding(40), holding(40)]), {
      maxMemoryMb: 60,
    });
    await node.start();
    const pid = info.pid as number;
    await eventually(() => failures.length > 0, 10_000, 'the memory limit to be reported');
    expect(failures[0]).toBeInstanceOf(FatalNodeError);
    const measured = Number(/used ([\d.]+) MiB of resident memory/.exec(failures[0]!.message)?.[1]);
    expect(failures[0]!.message).toMatch(/exceeded its memory limit maxMemoryMb 60/);
    expect(measured).toBeGreaterThan(60);
    await eventually(() => !processAlive(pid), 10_000, 'the node to be killed');
    expect(failures).toHaveLength(1);
  });

  it('kills a node whose processes used more CPU time than maxCpuSeconds', async () => {
    const { node, failures, info } = launch(nodeWithChildren(['while True: pass']), { maxCpuSeconds: 0.3 });
    await node.start();
    const pid = info.pid as number;
    await eventually(() => failures.length > 0, 10_000, 'the CPU limit to be reported');
    expect(failures[0]).toBeInstanceOf(FatalNodeError);
    expect(failures[0]!.message).toMatch(
      /exceeded its CPU limit maxCpuSeconds 0.3: its processes used [\d.]+ s/,
    );
    const measured = Number(/used ([\d.]+) s of CPU time/.exec(failures[0]!.message)?.[1]);
    expect(measured).toBeGreaterThan(0.3);
    await eventually(() => !processAlive(pid), 10_000, 'the node to be killed');
  });

  it('leaves a node within its limits running', async () => {
    const samples: number[] = [];
    const stop = watchLimits(
      process.pid,
      { maxMemoryMb: 1_000_000, maxCpuSeconds: 1_000_000 },
      () => {
        throw new Error('no breach expected');
      },
      () => {
        samples.push(1);
        return { rssBytes: 10 * 1024 * 1024, cpuSeconds: 1, processes: 1 };
      },
    );
    await eventually(() => samples.length >= 3, 10_000, 'three samples');
    stop();
  });
});

describe('reading the limits', () => {
  it('takes positive numbers from the config and ignores anything else', () => {
    expect(limitsOf({ maxMemoryMb: 64, maxCpuSeconds: 2.5 })).toEqual({
      maxMemoryMb: 64,
      maxCpuSeconds: 2.5,
    });
    expect(limitsOf({ maxMemoryMb: 0, maxCpuSeconds: '3' })).toEqual({});
  });

  it('names the limit, its value and the measurement', () => {
    const usage = { rssBytes: 100 * 1024 * 1024, cpuSeconds: 0.5, processes: 2 };
    expect(limitBreach({ maxMemoryMb: 64 }, usage)).toBe(
      'exceeded its memory limit maxMemoryMb 64: its processes used 100.0 MiB of resident memory',
    );
    expect(limitBreach({ maxCpuSeconds: 0.25 }, usage)).toBe(
      'exceeded its CPU limit maxCpuSeconds 0.25: its processes used 0.50 s of CPU time',
    );
    expect(limitBreach({ maxMemoryMb: 128, maxCpuSeconds: 1 }, usage)).toBeUndefined();
  });

  it('rounds the measurement up, so that one just over its limit never reads as the limit', () => {
    const over = { rssBytes: 60 * 1024 * 1024 + 4096, cpuSeconds: 0.3001, processes: 1 };
    expect(limitBreach({ maxMemoryMb: 60 }, over)).toBe(
      'exceeded its memory limit maxMemoryMb 60: its processes used 60.1 MiB of resident memory',
    );
    expect(limitBreach({ maxCpuSeconds: 0.3 }, over)).toBe(
      'exceeded its CPU limit maxCpuSeconds 0.3: its processes used 0.31 s of CPU time',
    );
    // Exact values stay as they are.
    expect(limitBreach({ maxCpuSeconds: 1 }, { ...over, cpuSeconds: 1.1 })).toBe(
      'exceeded its CPU limit maxCpuSeconds 1: its processes used 1.10 s of CPU time',
    );
  });
});

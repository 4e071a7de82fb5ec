/**
 * The life of an external node's process: start failures, crashes, stop escalation, process
 * groups, a child that breaks the protocol or floods. Children are real processes; the small ones
 * are inline scripts run by /bin/sh or Debian's Python (never through a shell of ours).
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createExternalNode, type ExternalNodeOptions } from './process-node.js';
import type { NodeInstance } from '../../../core/node.js';
import { NodeEndedError } from '../node-errors.js';
import { processAlive, recordingContext } from '../../../../test/sdk/fake-node-context.js';
import { eventually } from '../../../../test/support/wait.js';

const MOVING_AVERAGE = fileURLToPath(
  new URL('../../../../examples/nodes/moving-average.mjs', import.meta.url),
);
const PYTHON = '/usr/bin/python3';

const running: NodeInstance[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((node) => node.stop()));
});

function launch(argv: string[], config: Record<string, unknown> = {}, options: ExternalNodeOptions = {}) {
  const recorder = recordingContext(config);
  const node = createExternalNode(recorder.context, argv, options);
  running.push(node);
  return { node, ...recorder };
}

function stderrLines(logs: { line: string; stream: string }[]): string[] {
  return logs.filter((l) => l.stream === 'stderr').map((l) => l.line);
}

/** An inline Python node; `body` runs after `node = Node()` is created and before `node.run()`. */
function pythonNode(body: string): string[] {
  return [PYTHON, '-c', `import sys\nfrom headsetd_node import Node\nnode = Node()\n${body}\nnode.run()\n`];
}

describe('starting an external node', () => {
  it('rejects with the exit code and the last stderr lines when the child exits early', async () => {
    const { node } = launch(['/bin/sh', '-c', 'echo "cannot open the device" >&2; exit 3']);
    await expect(node.start()).rejects.toThrow(
      /exited with code 3 before announcing 'ready'.*cannot open the device/,
    );
  });

  it("quotes a JavaScript node's error and its own frames, not Node's internals", async () => {
    const { node } = launch([process.execPath, '-e', "throw new Error('no calibration file')"]);
    const error = await node.start().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(
      /exited with code 1 before announcing 'ready'; last stderr: .*Error: no calibration file \| +at \[eval\]/,
    );
    expect(error?.message).not.toMatch(/node:internal|Node\.js v/);
  });

  it('keeps the error above a stack of more internal frames than the lines it quotes', async () => {
    const stack = `Error: deep\n    at mine (/x.js:1:1)\n${'    at f (node:internal/x:1:1)\n'.repeat(12)}`;
    const { node } = launch([
      process.execPath,
      '-e',
      `process.stderr.write(${JSON.stringify(stack)}); process.exitCode = 2`,
    ]);
    await expect(node.start()).rejects.toThrow(/last stderr: Error: deep \| +at mine \(\/x\.js:1:1\)$/);
  });

  it('rejects and kills the child when it does not become ready in time', async () => {
    const { node, logs } = launch(['/bin/sh', '-c', 'echo "pid $$" >&2; exec sleep 30'], {
      readyTimeoutMs: 300,
    });
    await expect(node.start()).rejects.toThrow(/did not announce 'ready' within 300 ms.*pid \d+/);
    const pid = Number(/pid (\d+)/.exec(stderrLines(logs).join('\n'))?.[1]);
    await eventually(() => !processAlive(pid), 10_000, 'the unready child to be killed');
  });

  it('rejects when the program cannot be spawned', async () => {
    const { node } = launch(['/nonexistent/headsetd-node']);
    await expect(node.start()).rejects.toThrow(/could not be started: .*ENOENT/);
  });

  it('rejects an unknown protocol in the config', async () => {
    const { node } = launch([process.execPath, MOVING_AVERAGE], { protocol: 'xml' });
    await expect(node.start()).rejects.toThrow(/'protocol' must be 'ndjson' or 'binary'/);
  });

  it('explains a node that prints to stdout', async () => {
    const { node } = launch(
      pythonNode("@node.on_start\ndef start(config):\n    print('hello from the node')"),
    );
    await expect(node.start()).rejects.toThrow(/not JSON: "hello from the node".*stderr/);
  });
});

describe('a running external node', () => {
  it('reports a kill -9 from outside through context.fail', async () => {
    const { node, info, failures } = launch([process.execPath, MOVING_AVERAGE]);
    await node.start();
    const pid = info.pid as number;
    expect(processAlive(pid)).toBe(true);
    process.kill(pid, 'SIGKILL');
    await eventually(() => failures.length > 0, 5_000, 'the crash to be reported');
    expect(failures[0]!.message).toMatch(/was killed by SIGKILL/);
    expect(failures).toHaveLength(1);
  });

  it('reports an exit with its code and last stderr line', async () => {
    const { node, failures } = launch(
      pythonNode(
        "@node.on_data\ndef on_data(port, frame):\n    print('giving up on', port, file=sys.stderr)\n    sys.stdout.flush()\n    import os; os._exit(4)",
      ),
    );
    await node.start();
    node.onFrame?.('in', { seq: 0, timestamp: 0, sampleRate: 1, channels: ['a'], data: Float32Array.of(1) });
    await eventually(() => failures.length > 0, 10_000, 'the exit to be reported');
    expect(failures[0]!.message).toMatch(/exited with code 4; last stderr: giving up on in/);
  });

  it('reports an exit with status 0 as an end, not a failure', async () => {
    const { node, failures } = launch(
      pythonNode('@node.on_data\ndef on_data(port, frame):\n    import os; os._exit(0)'),
    );
    await node.start();
    node.onFrame?.('in', { seq: 0, timestamp: 0, sampleRate: 1, channels: ['a'], data: Float32Array.of(1) });
    await eventually(() => failures.length > 0, 10_000, 'the end to be reported');
    expect(failures[0]).toBeInstanceOf(NodeEndedError);
    expect(failures[0]!.message).toMatch(/exited with code 0/);
  });

  it('passes on a failure the node reports', async () => {
    const { node, failures } = launch(
      pythonNode("@node.on_data\ndef on_data(port, frame):\n    node.fail('sensor lost')"),
    );
    await node.start();
    node.onFrame?.('in', { seq: 0, timestamp: 0, sampleRate: 1, channels: ['a'], data: Float32Array.of(1) });
    await eventually(() => failures.length > 0, 10_000, 'the failure');
    expect(failures[0]!.message).toMatch(/reported an error: sensor lost/);
    expect(failures).toHaveLength(1);
  });

  it('stop ends the whole process group, grandchildren included', async () => {
    const { node, info, logs } = launch(
      pythonNode(
        "import subprocess\np = subprocess.Popen(['sleep', '300'])\nprint('grandchild', p.pid, file=sys.stderr)",
      ),
    );
    await node.start();
    const pid = info.pid as number;
    await eventually(
      () => stderrLines(logs).some((l) => l.startsWith('grandchild')),
      10_000,
      'the grandchild pid',
    );
    const grandchild = Number(
      stderrLines(logs)
        .find((l) => l.startsWith('grandchild'))!
        .split(' ')[1],
    );
    expect(processAlive(grandchild)).toBe(true);
    await node.stop();
    expect(processAlive(pid)).toBe(false);
    expect(processAlive(grandchild)).toBe(false);
  });

  it('escalates to SIGKILL when the child ignores stop, EOF and SIGTERM', async () => {
    const script = [
      'import signal, sys, time',
      'signal.signal(signal.SIGTERM, signal.SIG_IGN)',
      'sys.stdout.write(\'{"type":"ready"}\\n\'); sys.stdout.flush()',
      'while True: time.sleep(1)',
    ].join('\n');
    const { node, info, failures } = launch([PYTHON, '-c', script], {}, { stopGraceMs: 200 });
    await node.start();
    const pid = info.pid as number;
    await node.stop();
    // Only SIGKILL ends this child: it ignores the stop message, EOF and SIGTERM.
    expect(processAlive(pid)).toBe(false);
    expect(failures).toEqual([]);
    await node.stop(); // a second stop is harmless
  });
});

describe('a child that breaks the limits', () => {
  it.each([
    [
      'ndjson',
      'sys.stdout.write(\'{"type":"ready"}\\n\'); sys.stdout.flush(); sys.stdout.write(\'x\' * (17 << 20))',
    ],
    [
      'binary',
      "import struct; sys.stdout.buffer.write(struct.pack('<IB', 3, 4) + b'{}' + struct.pack('<I', 17 << 20))",
    ],
  ])('has an oversized %s message refused and the node failed', async (protocol, write) => {
    const script = `import sys, time\nsys.stdin.buffer.read(4)\n${write}\nsys.stdout.flush()\ntime.sleep(30)`;
    const { node, info, failures } = launch([PYTHON, '-c', script], { protocol }, { stopGraceMs: 200 });
    await node.start();
    const pid = info.pid as number;
    await eventually(() => failures.length > 0, 10_000, 'the refusal');
    expect(failures[0]!.message).toMatch(/broke the node protocol: .*refused/);
    await eventually(() => !processAlive(pid), 10_000, 'the broken child to be stopped');
  });

  it('drops and counts frames when the child floods stdout', async () => {
    const script = [
      'import sys',
      'from headsetd_node import Node, Frame',
      'node = Node()',
      '@node.on_start',
      'def start(config):',
      '    pass',
      '@node.on_signal',
      'def flood(name, payload):',
      '    for i in range(5000):',
      "        node.send('out', Frame(['a'], [[i]], 100, timestamp=0))",
      '    node.info(flooded=True)',
      'node.run()',
    ].join('\n');
    const { node, info, emitted } = launch([PYTHON, '-c', script], {}, { maxQueuedFrames: 8 });
    await node.start();
    await node.signal?.('go', {});
    await eventually(() => info.flooded === true, 10_000, 'the end of the flood');
    // The drop count is reported at most every 250 ms: wait until it accounts for every frame.
    const dropped = (): number => (info.framesDroppedFromNode as number | undefined) ?? 0;
    await eventually(
      () => emitted.length + dropped() === 5000,
      10_000,
      'every frame delivered or counted as dropped',
    );
    expect(dropped()).toBeGreaterThan(0);
    // What arrived is in order: drop-oldest keeps the newest frames.
    const seqs = emitted.map((e) => e.frame.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(seqs.at(-1)).toBe(4999);
  });

  it('counts as dropped the frames sent to a child that closed its stdin', async () => {
    const script = [
      'import os, sys, time',
      'sys.stdin.buffer.readline()',
      'sys.stdout.write(\'{"type":"ready"}\\n\'); sys.stdout.flush()',
      'os.close(0)',
      'time.sleep(30)',
    ].join('\n');
    const { node, info } = launch([PYTHON, '-c', script], {}, { stopGraceMs: 200 });
    await node.start();
    const data = new Float32Array(16_384);
    let seq = 0;
    // Frames go out until the write fails (EPIPE); every one after that is lost and must be counted.
    await eventually(
      () => {
        node.onFrame?.('in', { seq: seq++, timestamp: 0, sampleRate: 1, channels: ['a'], data });
        return typeof info.framesDroppedToNode === 'number' && info.framesDroppedToNode > 0;
      },
      10_000,
      'the drop report',
    );
  });

  it('drops and counts frames for a child that stops reading stdin', async () => {
    const script = [
      'import sys, time',
      'sys.stdin.buffer.readline()',
      'sys.stdout.write(\'{"type":"ready"}\\n\'); sys.stdout.flush()',
      'time.sleep(30)',
    ].join('\n');
    const { node, info } = launch([PYTHON, '-c', script], {}, { maxQueuedFrames: 4, stopGraceMs: 200 });
    await node.start();
    // 64 KiB frames: the pipe to the child (64 KiB on Linux) fills at once.
    const data = new Float32Array(16_384);
    for (let seq = 0; seq < 50; seq += 1) {
      node.onFrame?.('in', { seq, timestamp: 0, sampleRate: 1, channels: ['a'], data });
    }
    await eventually(() => typeof info.framesDroppedToNode === 'number', 10_000, 'the drop report');
    expect(info.framesDroppedToNode).toBeGreaterThanOrEqual(40);
  });
});

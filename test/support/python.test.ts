/**
 * The tests' Python reference server (test/support/python.ts): one process per test file, forked
 * by the run's fork server with the heavy modules already loaded, whose modules are loaded once,
 * arrays arriving as numpy arrays, and Python's errors as thrown errors with their traceback; a
 * process that dies says what it wrote; the fork server takes its processes with it when it ends.
 */
import { once } from 'node:events';
import { createConnection } from 'node:net';
import { createInterface } from 'node:readline';
import { describe, expect, test } from 'vitest';
import { callPython, PythonError, pythonSource, runPython, runPythonScript } from './python.js';
import { startPythonForkServer } from './python-fork-server.js';

const PROBE = pythonSource(
  'probe',
  String.raw`
import os
loads = globals().get("loads", 0) + 1

def pid_and_loads():
    return [os.getpid(), loads]

def describe(x, y, options):
    return {"type": type(x).__name__, "dtype": str(x.dtype), "sum": float(x.sum()), "y": str(y.dtype),
            "options": options, "list": x[:2]}

def noisy():
    print("printed")
    import warnings
    warnings.warn("warned")
    return None

def fails(n):
    return {"a": 1}["b" * n]

def loaded(names):
    import sys
    return [name in sys.modules for name in names]

def dies():
    os.write(2, b"the last words\n")
    os._exit(3)
`,
);

describe('python reference server', () => {
  test('one process per file, each module loaded once', async () => {
    const [pid, loads] = await callPython<[number, number]>(PROBE, 'pid_and_loads');
    expect(await callPython(PROBE, 'pid_and_loads')).toEqual([pid, loads]);
    expect(loads).toBe(1);
    expect(pid).not.toBe(process.pid);
  });

  test('typed arrays arrive as numpy arrays; numpy values come back as JSON', async () => {
    const x = new Float64Array([1.5, 2.25, 1e-300, -4]);
    const y = new Float32Array([Math.fround(0.1)]);
    expect(await callPython(PROBE, 'describe', x, y, { a: [1, 'b'] })).toEqual({
      type: 'ndarray',
      dtype: 'float64',
      sum: 1.5 + 2.25 + 1e-300 - 4,
      y: 'float32',
      options: { a: [1, 'b'] },
      list: [1.5, 2.25],
    });
  });

  test("what a call prints is its own output, not the protocol's", async () => {
    const { value, stdout, stderr } = await runPython(PROBE, 'noisy');
    expect(value).toBeNull();
    expect(stdout).toBe('printed\n');
    expect(stderr).toContain('UserWarning: warned');
  });

  test("an exception is a PythonError with Python's traceback, and the server goes on", async () => {
    const error = await callPython(PROBE, 'fails', 1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PythonError);
    expect((error as PythonError).traceback).toMatch(
      /<probe>", line \d+, in fails\n.*\{"a": 1\}\["b" \* n\]/s,
    );
    expect((error as PythonError).traceback).toContain("KeyError: 'b'");
    expect(await callPython(PROBE, 'pid_and_loads')).toHaveLength(2);
  });

  test('concurrent calls get their own answers', async () => {
    const sums = await Promise.all(
      [1, 2, 3, 4].map((n) =>
        callPython<{ sum: number }>(
          PROBE,
          'describe',
          new Float64Array(n).fill(n),
          new Float32Array(1),
          null,
        ),
      ),
    );
    expect(sums.map((s) => s.sum)).toEqual([1, 4, 9, 16]);
  });

  test('a script runs as python3 -c would: its argv, its stdin, what it prints; a non-zero exit fails', async () => {
    const script =
      'import sys, json\nprint(json.dumps([sys.argv[1:], sys.stdin.read(), __name__]))\nif sys.argv[1] == "x": sys.exit(3)';
    const { stdout, stderr } = await runPythonScript(script, ['a', 'b c'], 'input');
    expect(JSON.parse(stdout)).toEqual([['a', 'b c'], 'input', '__main__']);
    expect(stderr).toBe('');
    await expect(runPythonScript(script, ['x'])).rejects.toThrow(/SystemExit: 3/);
    // Its names stay in its own namespace.
    expect((await runPythonScript('print("script" in dir())')).stdout).toBe('False\n');
  });

  test('the process starts with numpy, scipy, MNE and scikit-learn loaded (by the fork server)', async () => {
    const names = ['numpy', 'scipy.signal', 'mne.io.edf', 'sklearn.cross_decomposition'];
    expect(await callPython(PROBE, 'loaded', names)).toEqual(names.map(() => true));
  });

  test('a process that dies rejects its call with what it wrote; the next call gets a new process', async () => {
    const [pid] = await callPython<[number, number]>(PROBE, 'pid_and_loads');
    const error = await callPython(PROBE, 'dies').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/probe\.dies: .* ended unasked\nthe last words/);
    const [next, loads] = await callPython<[number, number]>(PROBE, 'pid_and_loads');
    expect(next).not.toBe(pid);
    expect(loads).toBe(1);
  });
});

describe('python fork server', () => {
  test('a process per connection; at the end of its stdin it ends and takes them with it', async () => {
    const server = await startPythonForkServer({ modules: [] });
    const pids: number[] = [];
    const sockets = [createConnection(server.socket), createConnection(server.socket)];
    for (const socket of sockets) {
      const [greeting] = (await once(createInterface({ input: socket }), 'line')) as [string];
      pids.push((JSON.parse(greeting) as { pid: number }).pid);
    }
    expect(new Set(pids).size).toBe(2);
    for (const pid of pids) expect(() => process.kill(pid, 0)).not.toThrow();
    await server.stop();
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
    for (const socket of sockets) socket.destroy();
  });
});

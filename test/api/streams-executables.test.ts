/**
 * What a node's `executable` may name, through the API (docs/api.md §Executables): built-ins by
 * name, reference command lines as aliases, external programs only inside the allowed directories.
 */
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ControlPlane, controlPlane, STREAM_ID } from '../support/control-plane.js';
import { expectError, json, ok, readStream } from './helpers.js';

let cp: ControlPlane;
beforeEach(async () => {
  cp = await controlPlane();
  mkdirSync(cp.executablesDir, { recursive: true });
});
afterEach(async () => {
  await cp.close();
});

const LOGGER = { id: 'log', executable: 'logger' };

/** A stream of one node running `executable` (fed by a generator when it takes input). */
function withExecutable(executable: string, asSource = false) {
  if (asSource) {
    return {
      id: STREAM_ID,
      nodes: [{ id: 'x', type: 'EXECUTABLE_PRODUCER', executable }, LOGGER],
      pipes: [{ id: 'p', source: 'x', destination: 'log' }],
    };
  }
  return { id: STREAM_ID, nodes: [{ id: 'x', executable }], pipes: [] };
}

function script(name: string, mode: number, dir = cp.executablesDir): string {
  const file = path.join(dir, name);
  writeFileSync(file, '#!/bin/sh\nexit 0\n');
  chmodSync(file, mode);
  return file;
}

describe('executables', () => {
  it('accepts every built-in by name', async () => {
    const nodes = [
      {
        id: 'sg',
        executable: 'signal-generator',
        config: { sampleRate: 100, amplitudes: [1], frequencies: [5] },
      },
      { id: 'eeg', executable: 'eeg-source' },
      { id: 'f', executable: 'filter', config: { notch: 50 } },
      { id: 'ws', executable: 'websocket', config: { port: 0 } },
      { id: 'rec', executable: 'recorder', config: { filename: 'run.edf', format: 'edf' } },
      { id: 'log', executable: 'logger' },
    ];
    ok(await json(cp, 'POST', '/stream/streams', { id: STREAM_ID, nodes, pipes: [] }));
  });

  it('reference command lines resolve to the built-ins, config checked by their schemas', async () => {
    const dir = '/usr/share/engines/worker-scripts';
    const doc = {
      id: STREAM_ID,
      nodes: [
        {
          id: 'sg',
          executable: `node ${dir}/SignalGenerator.js`,
          config: { sampleRate: 250, amplitudes: [1], frequencies: [10] },
        },
        { id: 'ws', executable: `node ${dir}/WebSocket.js`, config: { port: 0 } },
        { id: 'log', executable: `node ${dir}/Logger.js` },
      ],
      pipes: [
        { id: 'a', source: 'sg', destination: 'ws' },
        { id: 'b', source: 'sg', destination: 'log' },
      ],
    };
    ok(await json(cp, 'POST', '/stream/streams', doc));
    // The alias brings the built-in's schema: a WebSocket without a port is refused.
    const noPort = structuredClone(doc);
    noPort.id = '11111111-2222-4333-8444-555555555555';
    (noPort.nodes[1] as { config: object }).config = {};
    const error = expectError(await json(cp, 'POST', '/stream/streams', noPort), 400, 'invalid_request');
    expect(error.error.details?.path).toBe('/nodes/1/config/port');
    // And its role: the alias of a sink takes no output.
    const sinkOut = structuredClone(doc);
    sinkOut.id = '11111111-2222-4333-8444-555555555556';
    sinkOut.pipes.push({ id: 'c', source: 'log', destination: 'ws' });
    expect(
      expectError(await json(cp, 'POST', '/stream/streams', sinkOut), 422, 'validation_failed').error.details
        ?.path,
    ).toBe('/pipes/2/source');
  });

  it('unknown executable: 422 with a pointer', async () => {
    for (const executable of ['no-such-program', 'node /nowhere/NoSuchScript.js', '   ']) {
      const error = expectError(
        await json(cp, 'POST', '/stream/streams', withExecutable(executable)),
        422,
        'unknown_executable',
      );
      expect(error.error.details?.path).toBe('/nodes/0/executable');
    }
  });

  it('a malformed command line: 422 with a pointer', async () => {
    const error = expectError(
      await json(cp, 'POST', '/stream/streams', withExecutable('"unclosed')),
      422,
      'validation_failed',
    );
    expect(error.error.details?.path).toBe('/nodes/0/executable');
    expect(error.error.message).toContain('quote');
  });

  it('programs and scripts outside the allowed directories: 403', async () => {
    const outside = path.join(cp.dataDir, 'outside.py');
    writeFileSync(outside, 'print(1)\n');
    for (const executable of [
      '/bin/ls',
      'ls -l',
      `python3 ${outside}`,
      `/usr/bin/env python3`,
      `sh -c ${outside}`,
    ]) {
      const error = expectError(
        await json(cp, 'POST', '/stream/streams', withExecutable(executable)),
        403,
        'executable_not_allowed',
      );
      expect(error.error.details?.path, executable).toBe('/nodes/0/executable');
    }
  });

  it('a symlink in the allowed directory pointing outside it is not allowed: 403', async () => {
    symlinkSync('/bin/ls', path.join(cp.executablesDir, 'ls-link'));
    expectError(
      await json(cp, 'POST', '/stream/streams', withExecutable('ls-link')),
      403,
      'executable_not_allowed',
    );
    expect(cp.manager.list()).toEqual([]);
  });

  it('a relative path climbing out of the allowed directory: 403', async () => {
    script('outside.sh', 0o755, cp.dataDir);
    expectError(
      await json(cp, 'POST', '/stream/streams', withExecutable('../outside.sh')),
      403,
      'executable_not_allowed',
    );
  });

  it('code given on the command line to an interpreter: 403 with a hint to use a file', async () => {
    for (const executable of ['python3 -c "print(1)"', 'node -e 1', "sh -c 'ls'", 'perl -e 1']) {
      const error = expectError(
        await json(cp, 'POST', '/stream/streams', withExecutable(executable)),
        403,
        'executable_not_allowed',
      );
      expect(error.error.message, executable).toContain('in a file');
    }
  });

  it('an executable file inside the allowed directory is accepted, by name or by path', async () => {
    const file = script('my-node.sh', 0o755);
    ok(await json(cp, 'POST', '/stream/streams', withExecutable('my-node.sh --gain 2', true)));
    ok(await json(cp, 'PUT', `/stream/streams/${STREAM_ID}`, withExecutable(file, true)));
    // Its config is open (the program validates it), beside the settings every node has.
    ok(
      await json(cp, 'POST', `/stream/streams/${STREAM_ID}/nodes`, [
        { id: 'y', executable: 'my-node.sh', config: { anything: [1, 2], restart: 'no' } },
      ]),
    );
    const bad = expectError(
      await json(cp, 'POST', `/stream/streams/${STREAM_ID}/nodes`, [
        { id: 'z', executable: 'my-node.sh', config: { restart: 'sometimes' } },
      ]),
      422,
      'validation_failed',
    );
    expect(bad.error.details?.path).toBe('/0/config/restart');
    expect((await readStream(cp, STREAM_ID)).nodes.map((n) => n.id)).toEqual(['x', 'log', 'y']);
  });

  it('resource limits of an external node must be positive numbers, pointed at when not', async () => {
    script('my-node.sh', 0o755);
    ok(await json(cp, 'POST', '/stream/streams', withExecutable('my-node.sh', true)));
    ok(
      await json(cp, 'POST', `/stream/streams/${STREAM_ID}/nodes`, [
        { id: 'limited', executable: 'my-node.sh', config: { maxMemoryMb: 64, maxCpuSeconds: 0.5 } },
      ]),
    );
    const cases: [Record<string, unknown>, string, 400 | 422, 'validation_failed' | 'invalid_request'][] = [
      [{ maxMemoryMb: 0 }, '/0/config/maxMemoryMb', 422, 'validation_failed'],
      [{ maxMemoryMb: -5 }, '/0/config/maxMemoryMb', 422, 'validation_failed'],
      [{ maxCpuSeconds: 0 }, '/0/config/maxCpuSeconds', 422, 'validation_failed'],
      [{ maxCpuSeconds: '10' }, '/0/config/maxCpuSeconds', 400, 'invalid_request'],
    ];
    for (const [config, pointer, status, code] of cases) {
      const bad = expectError(
        await json(cp, 'POST', `/stream/streams/${STREAM_ID}/nodes`, [
          { id: 'z', executable: 'my-node.sh', config },
        ]),
        status,
        code,
      );
      expect(bad.error.details?.path, JSON.stringify(config)).toBe(pointer);
    }
    // A built-in runs in the stream's worker, not a process of its own: it takes no limits.
    const builtin = expectError(
      await json(cp, 'POST', `/stream/streams/${STREAM_ID}/nodes`, [
        { id: 'b', executable: 'logger', config: { maxMemoryMb: 64 } },
      ]),
      400,
      'invalid_request',
    );
    expect(builtin.error.details?.path).toBe('/0/config/maxMemoryMb');
  });

  it('a script inside the allowed directory runs through its interpreter', async () => {
    const file = path.join(cp.executablesDir, 'node.py');
    writeFileSync(file, 'print(1)\n');
    ok(await json(cp, 'POST', '/stream/streams', withExecutable(`python3 ${file}`, true)));
  });

  it('a non-executable file in the allowed directory: 422 with a hint', async () => {
    script('plain.sh', 0o644);
    const error = expectError(
      await json(cp, 'POST', '/stream/streams', withExecutable('plain.sh')),
      422,
      'validation_failed',
    );
    expect(error.error.details?.path).toBe('/nodes/0/executable');
    expect(error.error.message).toContain('chmod +x');
  });

  it('a reference alias whose file exists and is allowed runs that file instead', async () => {
    const file = script('Logger.js', 0o755);
    // As an external program it has no built-in schema: a config the logger would refuse is fine.
    ok(
      await json(cp, 'POST', '/stream/streams', {
        id: STREAM_ID,
        nodes: [{ id: 'x', executable: file, config: { level: 'debug' } }],
        pipes: [],
      }),
    );
  });

  it('a removal refused because another node broke meanwhile points into the stream, not the body', async () => {
    // The program of node 'x' loses its execute bit after the stream was created: the whole graph
    // no longer validates. Removing 'log' is refused, and the pointer must name the stream's node
    // (/nodes/0/executable), not the first id of the request body (/0/executable).
    const file = script('flaky.sh', 0o755);
    ok(await json(cp, 'POST', '/stream/streams', withExecutable('flaky.sh', true)));
    chmodSync(file, 0o644);
    const error = expectError(
      await json(cp, 'DELETE', `/stream/streams/${STREAM_ID}/nodes`, ['log']),
      422,
      'validation_failed',
    );
    expect(error.error.details?.path).toBe('/nodes/0/executable');
    expect(error.error.message).toMatch(/^The stream at \/nodes\/0\/executable/);
    const pipes = expectError(
      await json(cp, 'DELETE', `/stream/streams/${STREAM_ID}/pipes`, ['p']),
      422,
      'validation_failed',
    );
    expect(pipes.error.details?.path).toBe('/nodes/0/executable');
    // Removing the broken node itself works.
    ok(await json(cp, 'DELETE', `/stream/streams/${STREAM_ID}/nodes`, ['x']));
  });

  it('an addition refused because an existing node broke names the stream, not the body, as the subject', async () => {
    const file = script('flaky2.sh', 0o755);
    ok(await json(cp, 'POST', '/stream/streams', withExecutable('flaky2.sh', true)));
    chmodSync(file, 0o644);
    const error = expectError(
      await json(cp, 'POST', `/stream/streams/${STREAM_ID}/nodes`, [{ id: 'more', executable: 'logger' }]),
      422,
      'validation_failed',
    );
    expect(error.error.details?.path).toBe('/nodes/0/executable');
    expect(error.error.message).toMatch(/^The stream at \/nodes\/0\/executable/);
    // An error of the added item itself is answered relative to the body.
    chmodSync(file, 0o755);
    const own = expectError(
      await json(cp, 'POST', `/stream/streams/${STREAM_ID}/nodes`, [
        { id: 'more', executable: 'filter', config: {} },
      ]),
      422,
      'validation_failed',
    );
    expect(own.error.details?.path).toBe('/0/config');
    expect(own.error.message).toMatch(/^The body at \/0\/config/);
  });
});

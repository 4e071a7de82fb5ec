/** The LSL built-ins' configs are checked before a stream runs, with errors that point at the field. */
import { expect, test } from 'vitest';
import { isHeadsetdError } from '../../src/core/errors.js';
import { parseCreateDocument } from '../../src/streams/stream-document.js';

function problem(
  config: Record<string, unknown>,
  executable = 'lsl-inlet',
): { message: string; path?: unknown } | undefined {
  const document = {
    id: '1b2c3d4e-5f60-4a1b-8c9d-0e1f2a3b4c5d',
    nodes: [
      { id: 'in', executable, config },
      { id: 'log', executable: 'logger' },
    ],
    pipes: [{ id: 'p', source: 'in', destination: 'log' }],
  };
  try {
    parseCreateDocument(document, { executablesDirs: [] });
    return undefined;
  } catch (error) {
    if (!isHeadsetdError(error)) throw error;
    return { message: error.message, path: error.details?.path };
  }
}

test('an lsl-inlet needs something to look for, and a predicate that parses', () => {
  expect(problem({ name: 'Eye tracker' })).toBeUndefined();
  expect(problem({ predicate: "starts-with(name,'Eye') and channel_count>2" })).toBeUndefined();
  expect(problem({})?.message).toMatch(/needs at least one of name, type, sourceId or predicate/);
  const bad = problem({ predicate: "type='EEG' and" });
  expect(bad?.message).toMatch(/not an XPath 1.0 expression/);
  expect(bad?.path).toBe('/nodes/0/config/predicate');
  expect(problem({ name: `a'b"c` })?.path).toBe('/nodes/0/config/name');
});

test('an lsl-outlet takes only its documented settings', () => {
  const document = (config: Record<string, unknown>) => ({
    id: '2b2c3d4e-5f60-4a1b-8c9d-0e1f2a3b4c5d',
    nodes: [
      {
        id: 'gen',
        executable: 'signal-generator',
        config: { sampleRate: 250, amplitudes: [1], frequencies: [10] },
      },
      { id: 'lsl', executable: 'lsl-outlet', config },
    ],
    pipes: [{ id: 'p', source: 'gen', destination: 'lsl' }],
  });
  expect(() =>
    parseCreateDocument(document({ name: 'Headset', channelFormat: 'double64' }), { executablesDirs: [] }),
  ).not.toThrow();
  expect(() => parseCreateDocument(document({ channelFormat: 'int16' }), { executablesDirs: [] })).toThrow(
    /channelFormat/,
  );
});

import { describe, expect, test } from 'vitest';
import { diffDefinitions } from './definition-diff.js';
import { definition, pipe } from '../../../test/runtime/helpers.js';

describe('diffDefinitions', () => {
  const gen = {
    id: 'gen',
    executable: 'signal-generator',
    config: { sampleRate: 100, amplitudes: [1], frequencies: [1] },
  };
  const ws = { id: 'ws', executable: 'websocket', config: { port: 0 } };
  const before = definition([gen, ws], [pipe('p1', 'gen', 'ws')], 'x');

  test('key order and meta changes are not changes', () => {
    const after = definition(
      [{ ...gen, meta: { note: 'x' }, config: { frequencies: [1], amplitudes: [1], sampleRate: 100 } }, ws],
      [pipe('p1', 'gen', 'ws', { policy: 'drop-oldest', capacity: 64 })],
      'x',
    );
    const diff = diffDefinitions(before, after);
    expect(diff.changedNodes).toEqual([]);
    expect(diff.unchangedNodes.map((n) => n.id)).toEqual(['gen', 'ws']);
    expect(diff.addedPipes).toEqual([]);
    expect(diff.removedPipes).toEqual([]);
  });

  test('finds added, removed and changed nodes and rewired pipes', () => {
    const after = definition(
      [
        { ...gen, config: { ...gen.config, sampleRate: 200 } },
        { id: 'log', executable: 'logger' },
      ],
      [pipe('p1', 'gen', 'log'), pipe('p2', 'gen', 'log', { sourcePort: 'out' })],
      'x',
    );
    const diff = diffDefinitions(before, after);
    expect(diff.changedNodes.map((n) => n.id)).toEqual(['gen']);
    expect(diff.addedNodes.map((n) => n.id)).toEqual(['log']);
    expect(diff.removedNodes).toEqual(['ws']);
    expect(diff.removedPipes).toEqual(['p1']);
    expect(diff.addedPipes.map((p) => p.id)).toEqual(['p1', 'p2']);
  });
});

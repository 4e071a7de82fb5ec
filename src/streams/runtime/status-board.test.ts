import { describe, expect, it } from 'vitest';
import { StatusBoard } from './status-board.js';

describe('a stream’s status board', () => {
  it('answers nothing before a first write, then the last value written, as JSON', () => {
    const memory = StatusBoard.memory();
    const writer = new StatusBoard(memory);
    const reader = new StatusBoard(memory);
    expect(reader.read()).toBeUndefined();
    writer.write({ seq: 1, status: { state: 'running', nodes: [{ id: 'Ωeeg', metrics: { items: 3 } }] } });
    writer.write({ seq: 2, status: { state: 'running', nodes: [] } });
    expect(reader.read()).toEqual({ seq: 2, status: { state: 'running', nodes: [] } });
    // A shorter text after a longer one leaves nothing of the longer behind.
    writer.write({ seq: 3 });
    expect(reader.read()).toEqual({ seq: 3 });
  });

  it('refuses a value whose text may not fit, and keeps the last one', () => {
    const memory = StatusBoard.memory();
    const board = new StatusBoard(memory);
    board.write({ seq: 1 });
    expect(board.write({ big: 'x'.repeat(100_000) })).toBe(false);
    expect(board.read()).toEqual({ seq: 1 });
  });
});

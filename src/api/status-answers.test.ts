import { describe, expect, test } from 'vitest';
import type { RuntimeStreamStatus } from '../streams/runtime/stream-runtime.js';
import { newEntry } from '../streams/entry.js';
import { StatusAnswers } from './status-answers.js';

const definition = {
  id: '3f9c1e4a-2b7d-4c8e-9a1f-5d6e7f8a9b0c',
  meta: { created: '2026-11-26T00:00:00.000Z', updated: '2026-11-26T00:00:00.000Z' },
  nodes: [{ id: 'gen', executable: 'signal-generator' }],
  pipes: [],
};
const metrics = {
  itemsProcessed: 1,
  samplesProcessed: 10,
  errorCount: 0,
  framesDropped: 0,
  queueDepth: 0,
  restarts: 0,
  lastError: null,
};
const snapshot = (items: number): RuntimeStreamStatus => ({
  nodes: { gen: { state: 'running', metrics: { ...metrics, itemsProcessed: items } } },
  pipes: {},
});

describe('StatusAnswers', () => {
  test('the same snapshot and state give the very same text; a new snapshot or state a new one', () => {
    const answers = new StatusAnswers();
    const entry = newEntry(definition, 'running', 'running');
    const first = snapshot(1);
    const text = answers.text(entry, first, true);
    expect(JSON.parse(text)).toMatchObject({ success: true, status: { state: 'running' } });
    expect(answers.text(entry, first, true)).toBe(text);

    const later = snapshot(2);
    const second = answers.text(entry, later, true);
    expect(JSON.parse(second).status.nodes[0].metrics.itemsProcessed).toBe(2);

    // The same snapshot, but the stream's own state or error changed.
    entry.state = 'paused';
    expect(JSON.parse(answers.text(entry, later, true)).status.state).toBe('paused');
    entry.error = 'broken';
    expect(JSON.parse(answers.text(entry, later, true)).status.error).toBe('broken');
  });
});

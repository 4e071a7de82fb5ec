import Fastify, { type FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { PolledAnswer, WriteEpoch } from './polled-answer.js';

/** An answer whose text says how many times it was made. */
function counting(): { make: () => string; made: () => number } {
  let made = 0;
  return {
    make: () => {
      made += 1;
      return `answer ${made}`;
    },
    made: () => made,
  };
}

describe('PolledAnswer', () => {
  it('serves the answer it made until it is maxAgeMs old, then makes another', () => {
    let now = 1000;
    const answer = new PolledAnswer(new WriteEpoch(), 1, () => now);
    const { make, made } = counting();
    expect(answer.get(make)).toBe('answer 1');
    now += 0.9;
    expect(answer.get(make)).toBe('answer 1');
    now += 0.1;
    expect(answer.get(make)).toBe('answer 2');
    expect(made()).toBe(2);
  });

  it('never serves an answer made before a write, however young', () => {
    const now = 1000;
    const writes = new WriteEpoch();
    const answer = new PolledAnswer(writes, 1000, () => now);
    const { make } = counting();
    expect(answer.get(make)).toBe('answer 1');
    writes.bump();
    expect(answer.get(make)).toBe('answer 2');
    expect(answer.get(make)).toBe('answer 2');
  });

  it('makes a new answer after invalidate (a device event)', () => {
    const answer = new PolledAnswer(new WriteEpoch(), 1000, () => 0);
    const { make } = counting();
    answer.get(make);
    answer.invalidate();
    expect(answer.get(make)).toBe('answer 2');
  });
});

describe('WriteEpoch.install', () => {
  async function app(writes: WriteEpoch): Promise<FastifyInstance> {
    const server = Fastify({ logger: false }) as unknown as FastifyInstance;
    writes.install(server);
    server.get('/read', () => ({ ok: true }));
    server.post('/write', () => ({ epochWhileHandled: writes.value }));
    server.put('/fail', () => {
      throw new Error('refused');
    });
    await server.ready();
    return server;
  }

  it('bumps when a writing request arrives and again before its answer is written; GETs leave it', async () => {
    const writes = new WriteEpoch();
    const server = await app(writes);
    try {
      await server.inject({ method: 'GET', url: '/read' });
      expect(writes.value).toBe(0);
      const answer = await server.inject({ method: 'POST', url: '/write' });
      expect(answer.json()).toEqual({ epochWhileHandled: 1 });
      expect(writes.value).toBe(2);
      // A write that fails may still have changed something: its answer bumps too.
      await server.inject({ method: 'PUT', url: '/fail' });
      expect(writes.value).toBe(4);
    } finally {
      await server.close();
    }
  });
});

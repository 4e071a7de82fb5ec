import { Writable } from 'node:stream';
import Fastify, { LogController } from 'fastify';
import pino from 'pino';
import { describe, expect, test, vi } from 'vitest';
import { requestLogger } from './request-logger.js';

function capture(): { logger: pino.Logger; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  const logger = pino({ level: 'info' }, sink);
  return {
    logger,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('requestLogger', () => {
  test("makes pino's child only when something is logged, with the bindings and level it would have had", () => {
    const { logger, lines } = capture();
    const child = vi.spyOn(logger, 'child');
    const log = requestLogger(logger, { reqId: 'req-7' }, {});
    expect(log.level).toBe('info');
    expect(child).not.toHaveBeenCalled();

    log.debug('below the level');
    log.warn({ code: 'not_found' }, 'a client error');
    log.error('a fault');
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines()).toMatchObject([
      { level: 40, reqId: 'req-7', code: 'not_found', msg: 'a client error' },
      { level: 50, reqId: 'req-7', msg: 'a fault' },
    ]);

    const quiet = requestLogger(logger, { reqId: 'req-8' }, { level: 'error' });
    expect(quiet.level).toBe('error');
    quiet.warn('not logged at this level');
    expect(lines()).toHaveLength(2);
  });

  test("a Fastify app's requests log through it, each line with its request's id", async () => {
    const { logger, lines } = capture();
    const app = Fastify({
      loggerInstance: logger,
      logController: new LogController({ disableRequestLogging: true }),
      childLoggerFactory: requestLogger,
    });
    app.get('/quiet', () => ({ ok: true }));
    app.get('/loud', (request) => {
      request.log.warn('asked for noise');
      return { ok: true };
    });
    await app.inject({ method: 'GET', url: '/quiet' });
    await app.inject({ method: 'GET', url: '/loud' });
    await app.close();
    const said = lines().filter((line) => line.msg === 'asked for noise');
    expect(said).toHaveLength(1);
    expect(said[0]?.reqId).toMatch(/^req-/);
  });
});

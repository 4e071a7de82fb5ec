/**
 * The answer text of a path every app polls (GET /system/status), made at most once per
 * `maxAgeMs` and never reused across a request that may change state.
 *
 * Why: under many pollers the answer's JSON encoding and the device's status (about 3 µs a
 * request) were a sixth of what a request cost (docs/performance-areas.md §GET /system/status
 * under wrk). What a client may rely on (docs/system-paths.md): every figure of the answer is at
 * most `maxAgeMs` old, which is below the resolution of the figures that move by themselves
 * (uptime in tenths of a second, the battery and temperature models, motor positions), and an
 * answer made before a request that writes (any method but GET and HEAD: starting a stream,
 * moving a motor, changing the EEG configuration) is never served after that request has been
 * answered, so a client sees its own change at once.
 */
import type { FastifyInstance, onRequestHookHandler, onSendHookHandler } from 'fastify';
import { appendHook } from './route-hooks.js';

/**
 * Counts the requests that may change state: bumped when such a request arrives and again when
 * its answer is about to be written, so that no answer made in between outlives it.
 */
export class WriteEpoch {
  private epoch = 0;

  get value(): number {
    return this.epoch;
  }

  bump(): void {
    this.epoch += 1;
  }

  /**
   * Adds the two bumps to every route of `app` registered after this call whose method is not
   * GET or HEAD, and to the WebSocket routes (opening a quick stream's socket creates a stream):
   * route-level hooks, so the polled GETs pay nothing. What a socket starts happens after its
   * upgrade, and the device changes by itself: those show within the answer's `maxAgeMs`, or at
   * once where the device emits an event ({@link PolledAnswer.invalidate}).
   */
  install(app: FastifyInstance): void {
    const onRequest: onRequestHookHandler = (_request, _reply, done) => {
      this.bump();
      done();
    };
    const onSend: onSendHookHandler = (_request, _reply, payload, done) => {
      this.bump();
      done(null, payload);
    };
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      const socket = route.websocket === true || (route as { wsHandler?: unknown }).wsHandler !== undefined;
      if (!socket && methods.every((m) => m === 'GET' || m === 'HEAD')) return;
      route.onRequest = appendHook(route.onRequest, onRequest);
      route.onSend = appendHook(route.onSend, onSend);
    });
  }
}

/**
 * One path's answer (its text, or its bytes), made afresh when older than `maxAgeMs` or when a
 * write intervened.
 */
export class PolledAnswer<T = string> {
  private text: T | undefined;
  private madeAt = 0;
  private madeInEpoch = -1;

  constructor(
    private readonly writes: WriteEpoch,
    private readonly maxAgeMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The answer: the last one made if it is still fresh, else `make()`'s, kept. */
  get(make: () => T): T {
    const now = this.now();
    if (
      this.text !== undefined &&
      this.madeInEpoch === this.writes.value &&
      now - this.madeAt < this.maxAgeMs
    ) {
      return this.text;
    }
    const epoch = this.writes.value;
    this.text = make();
    this.madeAt = now;
    this.madeInEpoch = epoch;
    return this.text;
  }

  /** Forgets the last answer: the next request makes one (a device event changed what it says). */
  invalidate(): void {
    this.text = undefined;
  }
}

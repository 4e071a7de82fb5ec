/**
 * A request's logger, made when the request first logs. Fastify gives each request a child of the
 * service's logger with the request's id bound, and most requests (every status poll) log nothing:
 * making pino's child (its bindings written out as JSON text) was 2 % of the main thread's busy
 * time under a flood of polls (docs/performance.md §GET /system/status: the tick records' shape).
 * What is logged, and how, is pino's child's, unchanged. The level methods are written out one by
 * one: each forwards its arguments as pino's own type describes them.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString, LogFn } from 'pino';

/** A level's method's arguments, as pino takes them (an object and a message, or a message). */
type LogArgs = Parameters<LogFn>;

class RequestLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get log(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }

  get level(): LevelWithSilentOrString {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: LevelWithSilentOrString) {
    this.log.level = level;
  }

  fatal(...args: LogArgs): void {
    this.log.fatal(...args);
  }

  error(...args: LogArgs): void {
    this.log.error(...args);
  }

  warn(...args: LogArgs): void {
    this.log.warn(...args);
  }

  info(...args: LogArgs): void {
    this.log.info(...args);
  }

  debug(...args: LogArgs): void {
    this.log.debug(...args);
  }

  trace(...args: LogArgs): void {
    this.log.trace(...args);
  }

  silent(...args: LogArgs): void {
    this.log.silent(...args);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.log.child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: each request's logger, made on first use. */
export function requestLogger(
  parent: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new RequestLogger(parent, bindings, options);
}

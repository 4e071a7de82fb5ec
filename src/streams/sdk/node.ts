/**
 * The SDK for writing headsetd nodes in TypeScript or JavaScript (`import { run } from
 * 'headsetd/sdk'`, or `await import(process.env.HEADSETD_SDK)` from a one-file node). It speaks
 * the node protocol of docs/node-protocol.md on stdin/stdout in the encoding headsetd chose:
 *
 * ```js
 * run({
 *   onData(port, frame, send) { send('out', frameLike(frame, frame.data)); },
 *   onSignal(name, payload) { if (name === 'marker') console.error('marker', payload.text); },
 * });
 * ```
 *
 * Log with `console.error` (stderr): stdout belongs to the protocol. The process exits when
 * headsetd sends `stop` or closes stdin, so a node never outlives the service.
 */
import type { Readable, Writable } from 'node:stream';
import type { Frame } from '../../core/frame.js';
import { createDecoder, encodeMessage } from '../../core/protocol/codec.js';
import {
  type ChildMessage,
  isEncoding,
  type ProtocolEncoding,
  type ProtocolMessage,
} from '../../core/protocol/messages.js';
import { type NodeFrame, type OutputFrame, samplesFromRows } from './frames.js';
import { errorMessage } from '../../core/error-message.js';

export * from './frames.js';

/** Sends a frame on an output port. Returns false when stdout is backed up (the frame is still queued). */
export type Send = (port: string, frame: OutputFrame) => boolean;

/** What a node is, to its handlers. */
export interface NodeHandle {
  readonly streamId: string;
  readonly nodeId: string;
  readonly config: Readonly<Record<string, unknown>>;
  /** True between `pause` and `resume`: a source should not emit. */
  readonly paused: boolean;
  send: Send;
  /** Fields shown in the node's status. */
  info(fields: Record<string, unknown>): void;
  /** Reports a failure: headsetd restarts the node per its restart policy. The process exits. */
  fail(message: string): void;
}

export interface NodeHandlers {
  /** Ports announced in `ready` (informational). */
  inputs?: string[];
  outputs?: string[];
  /** Runs once the config arrived, before `ready` is sent. */
  onStart?(config: Readonly<Record<string, unknown>>, node: NodeHandle): void | Promise<void>;
  /** A frame arrived on an input port. Frames are handled one at a time, in order. */
  onData?(port: string, frame: NodeFrame, send: Send): void | Promise<void>;
  /** Any signal: `pause`, `resume` and custom ones (`marker` with `{text}`, ...). `stop` goes to onStop. */
  onSignal?(name: string, payload: Readonly<Record<string, unknown>>, node: NodeHandle): void | Promise<void>;
  /** Runs before the process exits on `stop` or EOF. */
  onStop?(): void | Promise<void>;
}

/** Where the node talks; the process's own stdio unless a test says otherwise. */
export interface NodeIo {
  stdin: Readable;
  stdout: Writable;
  /** Where a crashing handler's stack goes (the node's log). */
  stderr: Writable;
  env: Readonly<Record<string, string | undefined>>;
  exit(code: number): void;
}

/** The running node's config (filled when the config message arrives). */
export const config: Record<string, unknown> = {};

let current: NodeRuntime | undefined;

/** Sends a frame from the node started by `run`. */
export function send(port: string, frame: OutputFrame): boolean {
  if (current === undefined) throw new Error('send() needs a node started with run()');
  return current.send(port, frame);
}

class NodeRuntime implements NodeHandle {
  streamId = '';
  nodeId = '';
  paused = false;
  private readonly encoding: ProtocolEncoding;
  private readonly nextSeq = new Map<string, number>();
  /** Ports whose next frame follows a pause. */
  private readonly afterGap = new Set<string>();
  private readonly backlog: ProtocolMessage[] = [];
  private busy = false;
  private ending = false;

  constructor(
    private readonly handlers: NodeHandlers,
    private readonly io: NodeIo,
  ) {
    const encoding = io.env.HEADSETD_PROTOCOL ?? 'ndjson';
    this.encoding = isEncoding(encoding) ? encoding : 'ndjson';
  }

  get config(): Readonly<Record<string, unknown>> {
    return config;
  }

  listen(): void {
    const decoder = createDecoder(this.encoding);
    this.io.stdin.on('data', (chunk: Buffer) => {
      let messages: ProtocolMessage[];
      try {
        messages = decoder.push(chunk);
      } catch (error) {
        this.fail(`cannot read stdin: ${(error as Error).message}`);
        return;
      }
      this.backlog.push(...messages);
      // What the handlers send for this chunk's messages leaves in one write (a burst of frames
      // would otherwise cost a system call and a wake-up of headsetd per frame).
      this.io.stdout.cork();
      try {
        this.pump();
      } finally {
        this.io.stdout.uncork();
      }
    });
    // EOF: headsetd is gone or done with us. Every node must exit then (docs/node-protocol.md).
    this.io.stdin.once('end', () => {
      this.backlog.push({ type: 'signal', name: 'stop', payload: {} });
      this.pump();
    });
  }

  send = (port: string, frame: OutputFrame): boolean => {
    const seq = frame.seq ?? this.nextSeq.get(port) ?? 0;
    this.nextSeq.set(port, seq + 1);
    const width = frame.channels.length;
    const data = frame.data instanceof Float32Array ? frame.data : samplesFromRows(frame.data, width);
    if (width === 0 ? data.length !== 0 : data.length % width !== 0) {
      throw new RangeError(`${data.length} samples do not fill rows of ${width} channels`);
    }
    if (frame.units !== undefined && frame.units.length !== width) {
      throw new RangeError(`units has ${frame.units.length} entries for ${width} channels (one per channel)`);
    }
    const gap = this.afterGap.delete(port);
    const out: Frame = {
      seq,
      timestamp: frame.timestamp ?? Date.now(),
      sampleRate: frame.sampleRate,
      channels: [...frame.channels],
      data,
      ...(frame.units === undefined ? {} : { units: [...frame.units] }),
      ...(frame.discontinuity === true || gap ? { discontinuity: true } : {}),
    };
    return this.write({ type: 'frame', port, frame: out });
  };

  info(fields: Record<string, unknown>): void {
    this.write({ type: 'info', info: fields });
  }

  fail(message: string): void {
    this.write({ type: 'error', message });
    this.exitAfterFlush(1);
  }

  private write(message: ChildMessage): boolean {
    if (this.ending) return false;
    return this.io.stdout.write(encodeMessage(this.encoding, message));
  }

  /** Handles queued messages one at a time; an async handler holds the next message (and stdin) until it settles. */
  private pump(): void {
    while (!this.busy && !this.ending) {
      const message = this.backlog.shift();
      if (message === undefined) return;
      let result: void | Promise<void>;
      try {
        result = this.handle(message);
      } catch (error) {
        this.crash(error);
        return;
      }
      if (result instanceof Promise) {
        this.busy = true;
        this.io.stdin.pause();
        result.then(
          () => {
            this.busy = false;
            this.io.stdin.resume();
            this.pump();
          },
          (error: unknown) => {
            this.crash(error);
          },
        );
      }
    }
  }

  private handle(message: ProtocolMessage): void | Promise<void> {
    switch (message.type) {
      case 'config':
        return this.begin(message.streamId, message.nodeId, message.config);
      case 'frame':
        return this.handlers.onData?.(message.port, message.frame, this.send);
      case 'signal':
        return this.onSignal(message.name, message.payload);
      default:
        throw new Error(`headsetd sent an unexpected '${message.type}' message`);
    }
  }

  private async begin(streamId: string, nodeId: string, received: Record<string, unknown>): Promise<void> {
    this.streamId = streamId;
    this.nodeId = nodeId;
    Object.assign(config, received);
    await this.handlers.onStart?.(config, this);
    this.write({
      type: 'ready',
      ...(this.handlers.inputs === undefined ? {} : { inputs: this.handlers.inputs }),
      ...(this.handlers.outputs === undefined ? {} : { outputs: this.handlers.outputs }),
    });
  }

  private onSignal(name: string, payload: Record<string, unknown>): void | Promise<void> {
    if (name === 'stop') return this.finish();
    if (name === 'pause') this.paused = true;
    if (name === 'resume') {
      this.paused = false;
      for (const port of this.nextSeq.keys()) this.afterGap.add(port);
    }
    return this.handlers.onSignal?.(name, payload, this);
  }

  private async finish(): Promise<void> {
    await this.handlers.onStop?.();
    this.exitAfterFlush(0);
  }

  private crash(error: unknown): void {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    this.io.stderr.write(`${text}\n`);
    this.fail(errorMessage(error));
  }

  /** Exits once everything written to stdout is flushed (writes complete in order). */
  private exitAfterFlush(code: number): void {
    if (this.ending) return;
    this.ending = true;
    this.io.stdin.pause();
    this.io.stdout.write('', () => {
      this.io.exit(code);
    });
  }
}

/** Starts the node: reads the config, calls `onStart`, announces `ready`, then serves frames and signals. */
export function run(handlers: NodeHandlers, io?: Partial<NodeIo>): NodeHandle {
  const runtime = new NodeRuntime(handlers, {
    stdin: io?.stdin ?? process.stdin,
    stdout: io?.stdout ?? process.stdout,
    stderr: io?.stderr ?? process.stderr,
    env: io?.env ?? process.env,
    exit:
      io?.exit ??
      ((code: number) => {
        process.exit(code);
      }),
  });
  current = runtime;
  runtime.listen();
  return runtime;
}

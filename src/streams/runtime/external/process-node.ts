/**
 * An external executable as a node of a stream: a child process speaking the node protocol
 * (docs/node-protocol.md). It never restarts itself: an exit, a crash or a protocol error after
 * start is reported once through `context.fail`, and the host's supervisor decides what follows.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { Frame } from '../../../core/frame.js';
import type { NodeContext, NodeInstance } from '../../../core/node.js';
import { FatalNodeError, NodeEndedError } from '../node-errors.js';
import { type ChildMessage, PROTOCOL_VERSION, type ProtocolError } from '../../../core/protocol/messages.js';
import { childEnvironment } from './child-env.js';
import { ChildInput } from './child-input.js';
import { ChildOutput } from './child-output.js';
import { signalGroup, trackGroup } from './process-group.js';
import { limitsOf, watchLimits } from './resource-limits.js';
import { type ExternalNodeOptions, type ExternalNodeSettings, resolveSettings } from './settings.js';
import { StderrLines } from './stderr-lines.js';
import { endGroup, stopProcessGroup } from './stop-sequence.js';
import { settleWithin } from '../../../core/deadline.js';
import { wallNowMs } from '../../../core/wall-clock.js';

export type { ExternalNodeOptions } from './settings.js';

/** How long an exit waits for the child's last stderr lines before it is reported, ms. */
const STDERR_SETTLE_MS = 150;

type Child = ChildProcessByStdio<Writable, Readable, Readable>;

function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal !== null ? `was killed by ${signal}` : `exited with code ${code ?? 'unknown'}`;
}

function withStderr(message: string, lines: readonly string[]): string {
  return lines.length === 0
    ? `${message} (no stderr output)`
    : `${message}; last stderr: ${lines.join(' | ')}`;
}

class ExternalProcessNode implements NodeInstance {
  private readonly settings: ExternalNodeSettings;
  private readonly label: string;
  private child: Child | undefined;
  private input: ChildInput | undefined;
  private output: ChildOutput | undefined;
  private readonly stderr: StderrLines;
  private stderrEnded: Promise<void> = Promise.resolve();
  private exited: Promise<void> = Promise.resolve();
  private hasExited = false;
  private ready = false;
  private stopping: Promise<void> | undefined;
  private failed = false;
  private startAttempt: { resolve: () => void; reject: (error: Error) => void } | undefined;
  private dropReport: NodeJS.Timeout | undefined;
  private stopWatchingLimits: () => void = () => undefined;

  constructor(
    private readonly context: NodeContext,
    private readonly argv: readonly string[],
    options: ExternalNodeOptions,
  ) {
    this.settings = resolveSettings(context.config, argv, options);
    this.label = options.label ?? argv.join(' ');
    this.stderr = new StderrLines((line) => {
      context.log(line, 'stderr');
    });
  }

  start(): Promise<void> {
    if (this.child !== undefined || this.stopping !== undefined) {
      return Promise.reject(new Error('an external node starts only once; create a new one to restart'));
    }
    const program = this.argv[0];
    if (program === undefined)
      return Promise.reject(new Error('the external node has an empty command line'));
    const { encoding } = this.settings;
    const child = spawn(program, this.argv.slice(1), {
      cwd: this.settings.cwd,
      env: childEnvironment({
        streamId: this.context.streamId,
        nodeId: this.context.nodeId,
        encoding,
        extra: this.settings.env,
      }),
      detached: true,
      shell: false,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child = child;
    const started = new Promise<void>((resolve, reject) => {
      this.startAttempt = { resolve, reject };
    });
    const timeout = setTimeout(() => {
      this.rejectStart(`did not announce 'ready' within ${this.settings.readyTimeoutMs} ms`, true);
    }, this.settings.readyTimeoutMs);
    const clear = (): void => {
      clearTimeout(timeout);
    };
    started.then(clear, clear);

    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.hasExited = true;
        resolve();
        void this.onExit(code, signal);
      });
    });
    child.once('error', (error) => {
      // Spawning failed (ENOENT, EACCES): no exit event follows.
      this.hasExited = true;
      this.rejectStart(`could not be started: ${error.message}`, false);
    });
    if (child.pid === undefined) return started;
    trackGroup(child.pid);
    // Also with the main thread: if this worker is terminated, it kills the group for us.
    this.context.trackProcessGroup(child.pid);
    const pgid = child.pid;
    this.stopWatchingLimits = watchLimits(pgid, limitsOf(this.context.config), (reason) => {
      this.onLimitBreach(pgid, reason);
    });

    this.stderrEnded = new Promise((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        this.stderr.push(chunk);
      });
      child.stderr.once('close', () => {
        this.stderr.end();
        resolve();
      });
    });
    this.input = new ChildInput(child.stdin, encoding, this.settings.maxQueuedFrames, () => {
      this.countDrop();
    });
    this.output = new ChildOutput(encoding, this.settings.maxMessageBytes, this.settings.maxQueuedFrames, {
      onMessage: (message) => {
        this.onMessage(message);
      },
      onDrop: () => {
        this.countDrop();
      },
      onProtocolError: (error) => {
        this.onProtocolError(error);
      },
    });
    child.stdout.on('data', (chunk: Buffer) => this.output?.push(chunk));
    // A read error on a pipe ends it; the process's exit is what gets reported. Never crash the worker.
    child.stdout.on('error', () => undefined);
    child.stderr.on('error', () => undefined);
    this.input.send({
      type: 'config',
      version: PROTOCOL_VERSION,
      streamId: this.context.streamId,
      nodeId: this.context.nodeId,
      encoding,
      config: { ...this.context.config },
    });
    return started;
  }

  onFrame(port: string, frame: Frame): void {
    if (this.ready) this.input?.send({ type: 'frame', port, frame });
  }

  pause(): void {
    this.input?.send({ type: 'signal', name: 'pause', payload: {} });
  }

  resume(): void {
    this.input?.send({ type: 'signal', name: 'resume', payload: {} });
  }

  signal(name: string, payload: Readonly<Record<string, unknown>>): void {
    this.input?.send({ type: 'signal', name, payload: { ...payload } });
  }

  stop(): Promise<void> {
    this.stopping ??= this.terminate();
    return this.stopping;
  }

  private onMessage(message: ChildMessage): void {
    switch (message.type) {
      case 'ready':
        this.ready = true;
        this.context.setInfo({
          pid: this.child?.pid,
          ...(message.inputs === undefined ? {} : { inputs: message.inputs }),
          ...(message.outputs === undefined ? {} : { outputs: message.outputs }),
        });
        this.startAttempt?.resolve();
        this.startAttempt = undefined;
        return;
      case 'frame': {
        const now = wallNowMs();
        this.context.emit(message.port, { ...message.frame, createdAt: now });
        return;
      }
      case 'info':
        this.context.setInfo(message.info);
        return;
      case 'error':
        this.context.log(`the node reported an error: ${message.message}`, 'event');
        this.reportFailure(`reported an error: ${message.message}`);
        return;
    }
  }

  private onProtocolError(error: ProtocolError): void {
    const message = `broke the node protocol: ${error.message}`;
    this.context.log(`${this.label} ${message}`, 'event');
    if (this.startAttempt !== undefined) {
      this.rejectStart(message, true);
      return;
    }
    this.reportFailure(message);
    // The byte stream cannot be resynchronised: end the process rather than guess.
    void this.stop();
  }

  private async onExit(code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    this.dispose();
    // Let the last stderr lines (a traceback, typically) arrive before the exit is described.
    await settleWithin(this.stderrEnded, STDERR_SETTLE_MS);
    if (this.stopping !== undefined) return;
    if (this.startAttempt !== undefined) {
      this.rejectStart(`${describeExit(code, signal)} before announcing 'ready'`, false);
    } else {
      // Status 0 is an end, not a failure: the supervisor restarts it only under `always`.
      this.reportFailure(describeExit(code, signal), code === 0 && signal === null ? 'ended' : 'failure');
    }
    // Anything the child left in its group is an orphan now.
    const pgid = this.child?.pid;
    if (pgid !== undefined) {
      void endGroup(pgid, this.settings.stopGraceMs).then(() => {
        this.context.untrackProcessGroup(pgid);
      });
    }
  }

  /**
   * A resource limit was exceeded: the group is killed at once (a node that floods memory must not
   * get the stop message's grace to take more), and the failure is fatal, since a restart would
   * only repeat it: the node goes to `error` with the reason as its lastError.
   */
  private onLimitBreach(pgid: number, reason: string): void {
    this.context.log(`${this.label} ${reason}; its process group is killed`, 'event');
    if (this.startAttempt !== undefined) {
      this.rejectStart(reason, false);
    } else {
      this.reportFailure(reason, 'fatal');
    }
    signalGroup(pgid, 'SIGKILL');
  }

  private rejectStart(reason: string, kill: boolean): void {
    const attempt = this.startAttempt;
    if (attempt === undefined) return;
    this.startAttempt = undefined;
    attempt.reject(new Error(withStderr(`external node '${this.label}' ${reason}`, this.stderr.lastLines())));
    if (kill) void this.stop();
  }

  private reportFailure(reason: string, kind: 'failure' | 'ended' | 'fatal' = 'failure'): void {
    if (this.failed || this.stopping !== undefined) return;
    this.failed = true;
    const message = withStderr(`external node '${this.label}' ${reason}`, this.stderr.lastLines());
    this.context.fail(
      kind === 'ended'
        ? new NodeEndedError(message)
        : kind === 'fatal'
          ? new FatalNodeError(message)
          : new Error(message),
    );
  }

  /** A frame lost in either direction: counted in the node's framesDropped where the host offers it, and in info. */
  private countDrop(): void {
    this.context.countDropped(1);
    this.scheduleDropReport();
  }

  private scheduleDropReport(): void {
    this.dropReport ??= setTimeout(() => {
      this.dropReport = undefined;
      // With the queues' depths and their bound: what a misbehaving child costs in memory.
      this.context.setInfo({
        framesDroppedToNode: this.input?.dropped ?? 0,
        framesDroppedFromNode: this.output?.dropped ?? 0,
        framesQueuedToNode: this.input?.queueDepth ?? 0,
        framesQueuedFromNode: this.output?.queueDepth ?? 0,
        maxQueuedFrames: this.settings.maxQueuedFrames,
      });
    }, 250);
  }

  private dispose(): void {
    this.stopWatchingLimits();
    if (this.dropReport !== undefined) clearTimeout(this.dropReport);
    this.dropReport = undefined;
  }

  /** Stop message and EOF, then SIGTERM to the group, then SIGKILL; resolves once the process and its group are gone. */
  private async terminate(): Promise<void> {
    const pgid = this.child?.pid;
    if (pgid === undefined) return;
    await stopProcessGroup({
      pgid,
      exited: this.exited,
      hasExited: () => this.hasExited,
      askToStop: () => {
        this.input?.send({ type: 'signal', name: 'stop', payload: {} });
        this.input?.end();
      },
      // A child that never became ready is not asked twice: SIGTERM at once.
      politeGraceMs: this.ready ? this.settings.stopGraceMs : 0,
      graceMs: this.settings.stopGraceMs,
    });
    this.output?.close();
    this.dispose();
    this.context.untrackProcessGroup(pgid);
    this.startAttempt?.reject(new Error(`external node '${this.label}' was stopped before it became ready`));
    this.startAttempt = undefined;
  }
}

/**
 * Creates the node of an external executable. `argv` is run as is, never through a shell, in its
 * own process group; `start()` resolves when the child has announced `ready`.
 */
export function createExternalNode(
  context: NodeContext,
  argv: readonly string[],
  options: ExternalNodeOptions = {},
): NodeInstance {
  try {
    return new ExternalProcessNode(context, argv, options);
  } catch (error) {
    // A bad setting (an unknown `protocol`) fails the start, where the runtime reports it.
    const reason = new Error(`external node '${argv.join(' ')}': ${(error as Error).message}`);
    return { start: () => Promise.reject(reason), stop: () => Promise.resolve() };
  }
}

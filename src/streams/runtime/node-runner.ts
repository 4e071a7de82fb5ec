/**
 * One node of a running stream: its executable's instance, its state (created → initialized →
 * running ↔ paused → terminated | error), its counters and log, and its supervision (restart per
 * policy with backoff, crash-loop limit). The running graph (running-graph.ts) owns the pipes and routes frames.
 *
 * Every instance gets a context bound to a *generation*: after a restart or stop, the old
 * instance's late emits and failures are ignored, so a dying node cannot disturb its successor. Its
 * late log lines are kept: they are what it wrote (a crashed process's traceback on stderr can
 * arrive after its failure was reported, on a busy machine often).
 */
import type { NodeDef, NodeState } from '../../core/stream-model.js';
import type { Frame } from '../../core/frame.js';
import { frameSamples } from '../../core/frame.js';
import { LogRing } from './log-ring.js';
import type { NodeContext, NodeInstance, NodeLogLine } from '../../core/node.js';
import { failureKind } from './node-errors.js';
import { applyNodeSignal } from './node-signals.js';
import {
  NODE_START_TIMEOUT_MS,
  NODE_STOP_TIMEOUT_MS,
  type NodeCounters,
  type RunnerEnvironment,
  withTimeout,
} from './runner-support.js';
import { PortSequencer } from './seal-frame.js';
import { RestartTracker, restartPolicyOf } from './supervisor.js';
import { errorMessage } from '../../core/error-message.js';

export type { NodeCounters, RunnerEnvironment } from './runner-support.js';

export class NodeRunner {
  state: NodeState = 'created';
  readonly counters: NodeCounters = {
    itemsProcessed: 0,
    samplesProcessed: 0,
    errorCount: 0,
    framesDropped: 0,
    restarts: 0,
    lastError: null,
  };
  info: Record<string, unknown> = {};
  /** The node's own counters (NodeContext.countMetric), kept across its restarts like the common ones. */
  readonly ownMetrics: Record<string, number> = {};
  /** Log lines not yet collected by the host (bounded like the log itself). */
  readonly newLogs = new LogRing();

  private instance: NodeInstance | undefined;
  private generation = 0;
  private readonly sequencer = new PortSequencer();
  private tracker: RestartTracker;
  private restartTimer: NodeJS.Timeout | undefined;
  private pausedByStream = false;

  constructor(
    public def: NodeDef,
    private readonly env: RunnerEnvironment,
  ) {
    this.tracker = new RestartTracker(restartPolicyOf(def.config));
  }

  get id(): string {
    return this.def.id;
  }

  /** Frames are delivered only to a running node; a paused or restarting one lets its queues fill. */
  get accepting(): boolean {
    return this.state === 'running';
  }

  /** A new definition of the same node (live update): the restart policy follows the new config. */
  redefine(def: NodeDef): void {
    const policyChanged = restartPolicyOf(def.config) !== restartPolicyOf(this.def.config);
    this.def = def;
    if (policyChanged) this.tracker = new RestartTracker(restartPolicyOf(def.config));
  }

  /** Live update changed the executable or config: stops the node; the caller starts it again. */
  async replace(def: NodeDef): Promise<void> {
    await this.stop();
    this.def = def;
    this.tracker = new RestartTracker(restartPolicyOf(def.config));
    this.counters.restarts++;
    this.sequencer.markGap();
  }

  log(line: string, stream: NodeLogLine['stream'] = 'event'): void {
    this.newLogs.push({ timestamp: Date.now(), stream, line });
  }

  /** Creates and starts an instance. Rejects with the reason (for a person) when it cannot start. */
  async start(): Promise<void> {
    if (this.state === 'running' || this.state === 'paused') return;
    this.clearRestartTimer();
    try {
      await this.launch();
    } catch (error) {
      this.recordError(error);
      this.state = 'error';
      this.env.changed();
      throw error;
    }
  }

  /** Stops the instance; the node is `terminated` (a node in `error` stays so). Safe to call in any state. */
  async stop(): Promise<void> {
    this.clearRestartTimer();
    const instance = this.instance;
    this.instance = undefined;
    this.generation++;
    this.pausedByStream = false;
    if (this.state !== 'terminated' && this.state !== 'error') {
      this.state = 'terminated';
      this.env.changed();
    }
    await this.release(instance);
  }

  /** Stream pause: only sources (no input pipes) pause; the rest drains. */
  pauseForStream(): void {
    if (this.state !== 'running' || this.env.hasInputs(this.id)) return;
    this.pause();
    this.pausedByStream = true;
  }

  resumeForStream(): void {
    if (this.pausedByStream) this.resume();
  }

  /** A frame from a pipe. A throw is a failure handled by the supervisor, never the caller's problem. */
  deliver(port: string, frame: Frame, now: number, latency: { record(now: number, ms: number): void }): void {
    const instance = this.instance;
    if (instance?.onFrame === undefined) return;
    this.counters.itemsProcessed++;
    this.counters.samplesProcessed += frameSamples(frame);
    if (frame.createdAt !== undefined) latency.record(now, now - frame.createdAt);
    const generation = this.generation;
    this.env.enter(this.id);
    try {
      instance.onFrame(port, frame);
    } catch (error) {
      this.fail(error, generation);
    } finally {
      this.env.enter(undefined);
    }
  }

  /** start, stop, pause, resume, restart; anything else goes to the instance as a custom signal. */
  signal(name: string, payload: Readonly<Record<string, unknown>>): Promise<void> {
    return applyNodeSignal(this, name, payload);
  }

  /** Manual restart (node signal `restart`): a fresh start, crash history forgotten. */
  async restart(): Promise<void> {
    await this.stop();
    this.tracker.reset();
    this.counters.restarts++;
    this.sequencer.markGap();
    return this.start();
  }

  /** Manual start (node signal `start`): crash history forgotten. */
  startBySignal(): Promise<void> {
    this.tracker.reset();
    return this.start();
  }

  /** Passes a custom signal to the instance; false when the executable takes no custom signals. */
  async customSignal(name: string, payload: Readonly<Record<string, unknown>>): Promise<boolean> {
    const instance = this.instance;
    if (instance?.signal === undefined) return false;
    this.env.enter(this.id);
    try {
      await instance.signal(name, payload);
    } finally {
      this.env.enter(undefined);
    }
    this.log(`signal ${name} handled`);
    return true;
  }

  /** Node signal `pause` (or a stream pause of a source). */
  pause(): void {
    this.state = 'paused';
    this.callInstance((instance) => instance.pause?.());
    this.env.changed();
  }

  /** Node signal `resume` (or a stream resume); the next frame marks the gap. */
  resume(): void {
    this.pausedByStream = false;
    this.state = 'running';
    this.sequencer.markGap();
    this.callInstance((instance) => instance.resume?.());
    this.env.changed();
  }

  private callInstance(call: (instance: NodeInstance) => void): void {
    const instance = this.instance;
    if (instance === undefined) return;
    const generation = this.generation;
    this.env.enter(this.id);
    try {
      call(instance);
    } catch (error) {
      this.fail(error, generation);
    } finally {
      this.env.enter(undefined);
    }
  }

  private async launch(): Promise<void> {
    const factory = await this.env.resolveFactory(this.def);
    const generation = ++this.generation;
    const context = this.createContext(generation);
    this.env.enter(this.id);
    let instance: NodeInstance;
    try {
      instance = factory(context);
    } finally {
      this.env.enter(undefined);
    }
    this.instance = instance;
    this.state = 'initialized';
    this.env.changed();
    try {
      await withTimeout(
        instance.start(),
        NODE_START_TIMEOUT_MS,
        `it was not ready after ${NODE_START_TIMEOUT_MS / 1000} s`,
      );
    } catch (error) {
      this.instance = undefined;
      this.generation++;
      await this.release(instance);
      throw error;
    }
    if (generation !== this.generation) return; // stopped while starting
    this.state = 'running';
    this.env.changed();
    if (this.env.streamPaused()) this.pauseForStream();
  }

  private async release(instance: NodeInstance | undefined): Promise<void> {
    if (instance === undefined) return;
    try {
      await withTimeout(
        instance.stop(),
        NODE_STOP_TIMEOUT_MS,
        `it did not stop within ${NODE_STOP_TIMEOUT_MS / 1000} s`,
      );
    } catch (error) {
      this.log(`stop failed: ${errorMessage(error)}`);
    }
  }

  private createContext(generation: number): NodeContext {
    const current = () => generation === this.generation;
    const streamName = this.env.streamName?.();
    return {
      streamId: this.env.streamId,
      ...(streamName === undefined ? {} : { streamName }),
      nodeId: this.id,
      config: Object.freeze({ ...(this.def.config ?? {}) }),
      dataDir: this.env.dataDir,
      ...(this.env.device === undefined ? {} : { device: this.env.device }),
      ...(this.env.access === undefined ? {} : { access: this.env.access }),
      ...(this.env.mainThreadLink === undefined ? {} : { mainThread: this.env.mainThreadLink(this.id) }),
      emit: (port, frame) => {
        if (current()) this.emit(port, frame);
      },
      log: (line, stream) => {
        this.log(line, stream);
      },
      fail: (error) => {
        this.fail(error, generation);
      },
      setInfo: (info) => {
        if (!current()) return;
        this.info = { ...this.info, ...info };
        this.env.changed();
      },
      countDropped: (frames) => {
        if (current()) this.counters.framesDropped += frames;
      },
      countMetric: (name, amount) => {
        if (!current()) return;
        this.ownMetrics[name] = (this.ownMetrics[name] ?? 0) + amount;
        this.env.changed();
      },
      warn: (message) => {
        if (current()) this.env.warned(this.id, message);
      },
      trackProcessGroup: (pgid) => {
        this.env.processGroup(pgid, true);
      },
      untrackProcessGroup: (pgid) => {
        this.env.processGroup(pgid, false);
      },
    };
  }

  private emit(port: string, frame: Frame): void {
    if (this.state === 'paused') {
      // A source without pause() of its own is silenced here; its next frame marks the gap.
      this.sequencer.markGap();
      return;
    }
    if (this.state !== 'running' && this.state !== 'initialized') return;
    const sealed = this.sequencer.seal(port, frame);
    if (!this.env.hasInputs(this.id)) {
      this.counters.itemsProcessed++;
      this.counters.samplesProcessed += frameSamples(sealed);
    }
    this.env.route(this.id, port, sealed);
  }

  private recordError(error: unknown): void {
    this.counters.errorCount++;
    this.counters.lastError = errorMessage(error);
    this.log(`error: ${this.counters.lastError}`);
  }

  /** Supervision: the instance failed (or ended); restart it per policy or leave the node in error. */
  private fail(error: unknown, generation: number): void {
    if (generation !== this.generation) return;
    const kind = failureKind(error);
    if (kind === 'ended') {
      this.log(errorMessage(error));
    } else {
      this.recordError(error);
    }
    const instance = this.instance;
    this.instance = undefined;
    this.generation++;
    void this.release(instance);
    const decision = this.tracker.onEnd(kind);
    const message = errorMessage(error);
    if (decision.restart) {
      this.state = 'initialized';
      this.log(`restarting in ${decision.delayMs} ms`);
      this.restartTimer = setTimeout(() => {
        this.restartTimer = undefined;
        void this.restartAfterFailure();
      }, decision.delayMs);
    } else {
      this.state = 'error';
      if (decision.reason === 'crash-loop') {
        this.counters.lastError = `${message} (crash loop: not restarted again)`;
        this.log('crash loop: the node failed too often and is not restarted again');
      }
    }
    this.env.crashed(this.id, message, decision.restart);
    this.env.changed();
  }

  private async restartAfterFailure(): Promise<void> {
    this.counters.restarts++;
    this.sequencer.markGap();
    try {
      await this.launch();
      this.log('restarted');
    } catch (error) {
      // A failed restart is one more failure, unless the node was stopped meanwhile.
      if (this.state !== 'terminated') this.fail(error, this.generation);
    }
  }

  private clearRestartTimer(): void {
    if (this.restartTimer !== undefined) clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
  }
}

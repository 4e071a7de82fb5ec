/** What the runtime contract's cases share: their shape, the contract's device, definitions, ports. */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import type { Frame } from '../../src/core/frame.js';
import { ListenerSet } from '../../src/core/listener-set.js';
import type { DeviceFeed, OpenSubscription } from '../../src/core/node.js';
import type { NodeDef, PipeDef, StreamDefinition } from '../../src/core/stream-model.js';
import type { StreamRuntime } from '../../src/streams/runtime/stream-runtime.js';

export const generator: NodeDef = {
  id: 'gen',
  executable: 'signal-generator',
  config: { sampleRate: 100, amplitudes: [1], frequencies: [5] },
};
export const logger: NodeDef = { id: 'log', executable: 'logger', config: {} };

export function definition(nodes: NodeDef[], pipes: PipeDef[]): StreamDefinition {
  const now = new Date().toISOString();
  return { id: randomUUID(), meta: { created: now, updated: now }, nodes, pipes };
}

export async function takenPort(): Promise<{ port: number; blocker: Server }> {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const address = blocker.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { port: address.port, blocker };
}

export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

/**
 * A device for the contract: it keeps each subscription (released or not), lets a case tell a
 * subscriber that the device holds its frames back (`onHold`, as the real adapter does after a
 * forced reset) and sends the frames a case gives it (`send`), which end such a hold.
 */
export class ContractDevice implements DeviceFeed {
  readonly subscriptions: {
    channels: readonly string[];
    onHold: ((reason: string) => void) | undefined;
    released: boolean;
  }[] = [];
  private readonly listeners = new ListenerSet<Frame>();

  open(
    request: { channels: readonly string[] },
    onHold?: (reason: string) => void,
  ): Promise<OpenSubscription> {
    const entry = { channels: request.channels, onHold, released: false };
    this.subscriptions.push(entry);
    return Promise.resolve({
      channels: request.channels.length === 0 ? undefined : request.channels,
      close: () => {
        entry.released = true;
      },
    });
  }

  onFrame(listener: (frame: Frame) => void): () => void {
    return this.listeners.add(listener);
  }

  /** Sends a frame to every subscriber. */
  send(frame: Frame): void {
    this.listeners.emit(frame);
  }

  /** The subscriptions not released yet. */
  live() {
    return this.subscriptions.filter((s) => !s.released);
  }
}

export interface RuntimeCaseContext {
  runtime: StreamRuntime;
  device: ContractDevice;
  /** Run after the case, last added first, before the runtime is closed. */
  cleanups: (() => unknown)[];
}

export interface RuntimeCase {
  title: string;
  /** The methods the case calls and checks the documented behaviour of. */
  covers: readonly (keyof StreamRuntime)[];
  run(context: RuntimeCaseContext): Promise<void>;
}

/**
 * Node signals (docs/api.md §Lifecycle, Nodes): start, stop, pause, resume and restart act on the node;
 * any other name goes to its executable as a custom signal. Asking for the state the node is
 * already in succeeds and changes nothing; an impossible transition is `invalid_state` with
 * `{state, signal, allowed}`.
 */
import { HeadsetdError } from '../../core/errors.js';
import type { NodeState } from '../../core/stream-model.js';
import { errorMessage } from '../../core/error-message.js';

/**
 * What a signal acts on: a node runner (node-runner.ts, which hands itself to
 * {@link applyNodeSignal}). Named here, by what signals need of it, so that this file does not
 * import the runner that imports it.
 */
export interface SignalledNode {
  readonly id: string;
  readonly state: NodeState;
  startBySignal(): Promise<void>;
  stop(): Promise<void>;
  pause(): void;
  resume(): void;
  restart(): Promise<void>;
  /** Hands a custom signal to the executable; false when it takes none of that name. */
  customSignal(name: string, payload: Readonly<Record<string, unknown>>): Promise<boolean>;
}

export const NODE_SIGNALS = ['start', 'stop', 'pause', 'resume', 'restart'] as const;

/** Signals that make sense in a state (for the `allowed` detail of invalid_state). */
function allowedSignals(state: NodeState): string[] {
  switch (state) {
    case 'running':
      return ['stop', 'pause', 'restart'];
    case 'paused':
      return ['stop', 'resume', 'restart'];
    default:
      return ['start', 'stop', 'restart'];
  }
}

function requireState(runner: SignalledNode, signal: string, allowed: NodeState[]): void {
  if (allowed.includes(runner.state)) return;
  throw new HeadsetdError(
    'invalid_state',
    `node ${runner.id} is ${runner.state}; '${signal}' is possible when it is ${allowed.join(' or ')}.`,
    { state: runner.state, signal, allowed: allowedSignals(runner.state) },
  );
}

export async function applyNodeSignal(
  runner: SignalledNode,
  name: string,
  payload: Readonly<Record<string, unknown>>,
): Promise<void> {
  switch (name) {
    case 'start':
      if (runner.state === 'running' || runner.state === 'paused') return;
      return runner.startBySignal();
    case 'stop':
      return runner.stop();
    case 'pause':
      if (runner.state === 'paused') return;
      requireState(runner, name, ['running']);
      runner.pause();
      return;
    case 'resume':
      if (runner.state === 'running') return;
      requireState(runner, name, ['paused']);
      runner.resume();
      return;
    case 'restart':
      return runner.restart();
    default:
      return customSignal(runner, name, payload);
  }
}

async function customSignal(runner: SignalledNode, name: string, payload: Readonly<Record<string, unknown>>) {
  requireState(runner, name, ['running', 'paused']);
  let handled: boolean;
  try {
    handled = await runner.customSignal(name, payload);
  } catch (error) {
    throw new HeadsetdError(
      'validation_failed',
      `node ${runner.id}: signal '${name}' failed: ${errorMessage(error)}`,
      {
        node: runner.id,
        signal: name,
      },
    );
  }
  if (!handled) {
    throw new HeadsetdError(
      'invalid_request',
      `node ${runner.id} does not accept the signal '${name}'; every node accepts ${NODE_SIGNALS.join(', ')}.`,
      { node: runner.id, signal: name },
    );
  }
}

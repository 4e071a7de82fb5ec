/**
 * A NodeContext that records what a node does, for tests that run nodes without a runtime host.
 */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Frame } from '../../src/core/frame.js';
import type { NodeContext, NodeLogLine } from '../../src/core/node.js';

export interface RecordingContext {
  context: NodeContext;
  emitted: { port: string; frame: Frame }[];
  logs: { line: string; stream: NodeLogLine['stream'] }[];
  failures: Error[];
  info: Record<string, unknown>;
  /** Frames the node reported lost (countDropped). */
  dropped: number;
}

export function recordingContext(config: Record<string, unknown> = {}): RecordingContext {
  const recorded: Omit<RecordingContext, 'context'> = {
    emitted: [],
    logs: [],
    failures: [],
    info: {},
    dropped: 0,
  };
  const context: NodeContext = {
    streamId: 'stream-1',
    nodeId: 'node-1',
    config,
    dataDir: tmpdir(),
    emit(port, frame) {
      recorded.emitted.push({ port, frame });
    },
    log(line, stream = 'event') {
      recorded.logs.push({ line, stream });
    },
    fail(error) {
      recorded.failures.push(error);
    },
    setInfo(info) {
      Object.assign(recorded.info, info);
    },
    countDropped(frames) {
      recorded.dropped += frames;
    },
    trackProcessGroup: () => undefined,
    untrackProcessGroup: () => undefined,
  };
  // One object, so that `dropped` read later is the count now, not a copy taken here.
  return Object.assign(recorded, { context });
}

/** True while a process with this pid exists and is not a zombie. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // A zombie (killed, not yet reaped by init) has exited for every purpose here.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/**
 * The escalation that ends an external node (docs/node-protocol.md §7): ask politely, then
 * SIGTERM to the process group, then SIGKILL; then end whatever the node left in its group.
 */
import { settleWithin } from '../../../core/deadline.js';
import { signalGroup, untrackGroup, waitForGroupGone } from './process-group.js';

export interface StopTarget {
  /** The group's id: the leader's pid. */
  pgid: number;
  /** Resolves when the leader has exited. */
  exited: Promise<void>;
  hasExited(): boolean;
  /** Sends the stop message and closes stdin. */
  askToStop(): void;
  /** How long to wait after asking (0: the child is not worth asking), ms. */
  politeGraceMs: number;
  /** How long SIGTERM has before SIGKILL, ms. */
  graceMs: number;
}

async function exitWithin(exited: Promise<void>, ms: number): Promise<boolean> {
  return (await settleWithin(exited, ms)).done;
}

/**
 * Ends whatever remains of the group once its leader is gone: SIGTERM and a short grace, or
 * SIGKILL at once when the group was already sent SIGTERM. Bounded (≤ about 1 s) so that a whole
 * stop stays under the runtime's 5 s stop limit (node-runner.ts).
 */
export async function endGroup(pgid: number, graceMs: number, alreadyTerminated = false): Promise<void> {
  if (!(await waitForGroupGone(pgid, 0))) {
    if (!alreadyTerminated) signalGroup(pgid, 'SIGTERM');
    const grace = alreadyTerminated ? 0 : Math.min(graceMs, 500);
    if (!(await waitForGroupGone(pgid, grace))) {
      signalGroup(pgid, 'SIGKILL');
      await waitForGroupGone(pgid, 500);
    }
  }
  untrackGroup(pgid);
}

/** Runs the whole escalation; resolves once the leader has exited and its group is gone. */
export async function stopProcessGroup(target: StopTarget): Promise<void> {
  let forced = false;
  if (!target.hasExited()) {
    target.askToStop();
    if (!(await exitWithin(target.exited, target.politeGraceMs))) {
      forced = true;
      signalGroup(target.pgid, 'SIGTERM');
      if (!(await exitWithin(target.exited, target.graceMs))) signalGroup(target.pgid, 'SIGKILL');
    }
    await target.exited;
  }
  await endGroup(target.pgid, target.graceMs, forced);
}

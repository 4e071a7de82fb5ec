/**
 * How `headsetd serve` ends on SIGINT or SIGTERM: exit status 0 within SHUTDOWN_BUDGET_MS, with no
 * process of any node left behind.
 *
 * Streams stop in parallel (server.ts: their nodes' process groups are killed if they take longer
 * than STREAMS_STOP_DEADLINE_MS), then sockets, device and store close. Should that still run past
 * FORCED_EXIT_MS, or a second signal come, every node's process group gets SIGKILL synchronously
 * and the process exits. Either way, members of the service's cgroup other than itself (programs
 * that left their process group with setsid()) are killed last (streams/runtime/external/cgroup.ts).
 */
import type { Logger } from 'pino';
import type { ChildContainment } from '../streams/runtime/external/cgroup.js';
import type { RunningServer } from './server.js';

/** The documented bound on a shutdown (README, Configuration), ms. */
export const SHUTDOWN_BUDGET_MS = 5000;
/** When the process exits whatever is still closing; the rest of the budget is the exit itself. */
export const FORCED_EXIT_MS = 4500;

export function installShutdown(
  server: RunningServer,
  containment: ChildContainment | undefined,
  logger: Logger,
): void {
  let stopping = false;
  const exit = (): void => {
    const killed = containment?.killOthers() ?? 0;
    if (killed > 0) {
      logger.warn(`killed ${killed} process(es) that had left their node's process group (setsid)`);
    }
    containment?.release();
    process.exit(0);
  };
  const force = (reason: string): void => {
    logger.warn(`${reason}; killing every node's process group and exiting`);
    server.abort();
    exit();
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      force(`${signal} again while stopping`);
      return;
    }
    stopping = true;
    logger.info(`${signal}: stopping`);
    setTimeout(() => {
      force(`shutdown still running after ${FORCED_EXIT_MS / 1000} s`);
    }, FORCED_EXIT_MS);
    server.close().then(exit, (error: unknown) => {
      logger.error({ err: error }, 'shutdown failed');
      force('shutdown failed');
    });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

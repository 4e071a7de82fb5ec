/**
 * Periodic work of a thread, in rounds: one timer per period for the whole thread, however many
 * jobs join it, so that a thread's periodic jobs of one period wake it once per period between
 * them rather than once each. On the API's thread the device's housekeeping and the stream
 * workers' watchdog both run every ROUND_MS, so running streams add no wake-up to those the idle
 * service has (docs/performance.md §The API thread's wake-ups).
 *
 * A round's timer is unref'd: periodic work never keeps the process alive by itself.
 */
import { ListenerSet, type Unsubscribe } from './listener-set.js';

/** The period of the API thread's own periodic work: the round its jobs share. */
export const ROUND_MS = 1000;

const rounds = new Map<number, { timer: NodeJS.Timeout; jobs: ListenerSet<undefined> }>();

/**
 * Runs `job` every `periodMs` in that period's round of this thread, which starts with its first
 * job and ends with its last; answers the end of the job's turn. A job that throws stops no other
 * (its error is a process warning).
 */
export function joinRound(periodMs: number, job: () => void): Unsubscribe {
  let round = rounds.get(periodMs);
  if (round === undefined) {
    const jobs = new ListenerSet<undefined>((error) => {
      const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
      process.emitWarning(`A periodic job threw: ${text}`, 'HeadsetdRoundWarning');
    });
    const timer = setInterval(() => {
      jobs.emit(undefined);
    }, periodMs);
    timer.unref();
    round = { timer, jobs };
    rounds.set(periodMs, round);
  }
  const { jobs, timer } = round;
  const leave = jobs.add(job);
  let left = false;
  return () => {
    if (left) return;
    left = true;
    leave();
    if (jobs.size > 0) return;
    clearInterval(timer);
    rounds.delete(periodMs);
  };
}

/** The rounds this thread runs now: each period and its number of jobs. */
export function activeRounds(): Map<number, number> {
  return new Map([...rounds].map(([period, { jobs }]) => [period, jobs.size]));
}

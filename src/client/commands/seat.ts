/**
 * `headsetd seat`: seats the electrodes in closed loop (POST /electrodes/impedance/optimize, run
 * as a job of the service) and shows a progress bar per electrode while the job runs, read from
 * GET /system/jobs/{id}. Ctrl-C cancels the job (its motors stop where they are).
 */
import {
  type ImpedanceLevel,
  impedanceLevel,
  type LevelThresholds,
} from '../../guides/headmap/impedance-levels.js';
import type { Command, Group } from '../command.js';
import { listOption, stringOption } from '../command.js';
import { ApiError, EXIT, UsageError } from '../failures.js';
import { LiveView, progressBar } from '../live.js';
import type { Output } from '../output.js';
import { fixed, table } from '../table.js';
import { thresholdsOf } from './impedance.js';
import { levelStyle } from './styles.js';
import { sleep } from './waiting.js';
import type { Static } from 'typebox';
import type { ElectrodeProgressShape } from '../../platform/schemas/jobs.js';

/** One electrode of the job's progress, as the API documents it. */
type ElectrodeProgress = Static<typeof ElectrodeProgressShape>;

interface Result {
  before: number;
  after: number;
  attempts: number;
  reached: boolean;
  position: number;
  reason: string;
}

interface Job {
  id: string;
  status: 'running' | 'completed' | 'failed' | 'cancelled';
  progress: { total?: number; completed?: number; electrodes?: Record<string, ElectrodeProgress> };
  result: { strategy: string; targetImpedance: number; results: Record<string, Result> } | null;
  error: { code: string; message: string; details?: Record<string, unknown> } | null;
}

const POLL_MS = 250;

function levelText(out: Output, kohms: number | null, thresholds: LevelThresholds): string {
  if (kohms === null) return '';
  const level: ImpedanceLevel = impedanceLevel(kohms, thresholds);
  return levelStyle(out, level, `${kohms.toFixed(2)} kΩ`);
}

function renderProgress(out: Output, job: Job, maxAttempts: number, thresholds: LevelThresholds): string[] {
  const electrodes = Object.entries(job.progress.electrodes ?? {});
  const done = electrodes.filter(([, e]) => e.done).length;
  return [
    out.style('bold', `seating ${String(electrodes.length)} electrode(s): ${String(done)} done`),
    ...table(
      electrodes,
      [
        { header: 'ELECTRODE', value: ([name]) => name },
        {
          header: 'PROGRESS',
          value: ([, e]) => progressBar(e.done ? 1 : (e.attempts ?? 0) / maxAttempts),
        },
        {
          header: 'STEP',
          value: ([, e]) =>
            e.done
              ? (e.reason ?? 'done')
              : (e.attempts ?? 0) > 0
                ? `attempt ${String(e.attempts)}/${String(maxAttempts)}`
                : 'approaching',
        },
        { header: 'POSITION', value: ([, e]) => fixed(e.position, 1), align: 'right' },
        { header: 'IMPEDANCE', value: ([, e]) => levelText(out, e.impedance, thresholds), align: 'right' },
      ],
      (t) => out.style('bold', t),
    ),
  ];
}

function renderResult(out: Output, job: Job, thresholds: LevelThresholds): string[] {
  const result = job.result;
  if (result === null) return [];
  return [
    out.style('bold', `strategy ${result.strategy}, target ${String(result.targetImpedance)} kΩ`),
    ...table(
      Object.entries(result.results),
      [
        { header: 'ELECTRODE', value: ([name]) => name },
        { header: 'BEFORE', value: ([, r]) => levelText(out, r.before, thresholds), align: 'right' },
        { header: 'AFTER', value: ([, r]) => levelText(out, r.after, thresholds), align: 'right' },
        { header: 'ATTEMPTS', value: ([, r]) => String(r.attempts), align: 'right' },
        { header: 'POSITION', value: ([, r]) => fixed(r.position, 1), align: 'right' },
        {
          header: 'REACHED',
          value: ([, r]) => (r.reached ? 'yes' : 'no'),
          style: ([, r], t) => out.style(r.reached ? 'green' : 'yellow', t),
        },
        { header: 'REASON', value: ([, r]) => r.reason },
      ],
      (t) => out.style('bold', t),
    ),
  ];
}

function numberOption(values: Record<string, unknown>, name: string): number | undefined {
  const text = stringOption(values as never, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value)) throw new UsageError(`--${name}: ${JSON.stringify(text)} is not a number.`);
  return value;
}

const seat: Command = {
  name: 'seat',
  args: '[--channels LIST] [--target KOHM] [--strategy NAME] [--max-attempts N] [--priority LIST]',
  summary: 'Seat the electrodes: press each in closed loop until its impedance is under the target.',
  help: `Options:
  --channels LIST      electrodes, comma-separated or repeated (default: all 21)
  --priority LIST      electrodes seated first, on their own
  --target KOHM        the impedance to reach, kΩ (default: the "good" threshold, 10)
  --strategy NAME      gentle (default), aggressive, research, clinical or bci
  --max-attempts N     press moves per electrode after contact, 1 to 50 (default 15)
Shows a progress bar per electrode (attempts made after contact), then the results: impedance
before and after, attempts, final position, whether the target was reached and why the loop ended.
Exits 0 when every electrode reached the target, 4 when one did not (each named on stderr).
Ctrl-C cancels the operation: the motors stop where they are (exit 130).
With --json: the operation's answer {success, strategy, targetImpedance, results}, success false
when an electrode did not reach the target.`,
  options: {
    channels: { type: 'string', multiple: true },
    priority: { type: 'string', multiple: true },
    target: { type: 'string' },
    strategy: { type: 'string' },
    'max-attempts': { type: 'string' },
  },
  async run({ client, out, values, signal }) {
    const maxAttempts = numberOption(values, 'max-attempts');
    const target = numberOption(values, 'target');
    const channels = listOption(values, 'channels');
    const priority = listOption(values, 'priority');
    const strategy = stringOption(values, 'strategy');
    const thresholds = await thresholdsOf(client);
    const started = await client.post<{ job: Job }>('/electrodes/impedance/optimize', {
      json: {
        ...(channels === undefined ? {} : { channels }),
        ...(priority === undefined ? {} : { priorityChannels: priority }),
        ...(target === undefined ? {} : { targetImpedance: target }),
        ...(maxAttempts === undefined ? {} : { maxAttempts }),
        ...(strategy === undefined ? {} : { strategy }),
      },
    });
    const jobPath = `/system/jobs/${encodeURIComponent(started.job.id)}`;
    const view = new LiveView(out);
    const reported = new Set<string>();
    let job = started.job;
    // Elsewhere than on a terminal, one line per electrode as it is done.
    const reportDone = (): void => {
      for (const [name, e] of Object.entries(job.progress.electrodes ?? {}))
        if (e.done && !reported.has(name)) {
          reported.add(name);
          out.line(`${name} done: ${levelText(out, e.impedance, thresholds)} (${e.reason ?? ''})`);
        }
    };
    while (job.status === 'running') {
      if (!out.json) {
        if (out.tty) view.draw(renderProgress(out, job, maxAttempts ?? 15, thresholds));
        else reportDone();
      }
      if (!(await sleep(POLL_MS, signal))) {
        const { job: cancelled } = await client.request<{ job: Job }>('DELETE', jobPath);
        out.note(
          `seating ${cancelled.status === 'cancelled' ? 'cancelled' : cancelled.status}: the motors stopped where they were`,
        );
        return EXIT.interrupted;
      }
      ({ job } = await client.get<{ job: Job }>(jobPath));
    }
    if (job.status !== 'completed' || job.result === null) {
      const error = job.error ?? { code: 'internal_error', message: `The operation ended ${job.status}.` };
      throw new ApiError(0, { success: false, error });
    }
    const missed = Object.entries(job.result.results)
      .filter(([, r]) => !r.reached)
      .map(([name]) => name);
    if (out.json) out.document({ success: missed.length === 0, ...job.result });
    else {
      if (out.tty) view.draw(renderProgress(out, job, maxAttempts ?? 15, thresholds));
      else reportDone();
      out.line();
      for (const line of renderResult(out, job, thresholds)) out.line(line);
    }
    if (missed.length === 0) return EXIT.ok;
    const total = Object.keys(job.result.results).length;
    out.note(
      `headsetd: ${String(missed.length)} of ${String(total)} electrode(s) did not reach ${String(job.result.targetImpedance)} kΩ: ${missed.join(', ')}`,
    );
    return EXIT.notMet;
  },
};

export const seatGroup: Group = {
  name: 'seat',
  summary: 'seat the electrodes (closed-loop pressure to a target impedance), with progress bars',
  commands: [seat],
};

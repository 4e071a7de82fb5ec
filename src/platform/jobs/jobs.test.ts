import { describe, expect, it } from 'vitest';
import { JobRegistry, type JobRecord } from './jobs.js';
import { HeadsetdError } from '../../core/errors.js';

/** An operation that runs until `finish` or until its job is cancelled. */
function controllable(): {
  run: (context: { signal: AbortSignal }) => Promise<{ value: string }>;
  finish: (value: string) => void;
} {
  let finish: (result: { value: string }) => void = () => undefined;
  return {
    run: ({ signal }) =>
      new Promise<{ value: string }>((resolve, reject) => {
        finish = resolve;
        signal.addEventListener('abort', () => {
          reject(signal.reason as Error);
        });
      }),
    finish: (value) => {
      finish({ value });
    },
  };
}

describe('job registry', () => {
  it('runs an operation to its result, with progress reported to listeners', async () => {
    const jobs = new JobRegistry();
    const seen: JobRecord[] = [];
    jobs.onChange((record) => seen.push(record));
    const op = controllable();
    const job = jobs.start('test.op', { step: 0 }, async (context) => {
      context.progress({ step: 1 });
      return op.run(context);
    });
    expect(job.record()).toMatchObject({ status: 'running', progress: { step: 1 }, result: null });
    op.finish('done');
    await expect(job.settled).resolves.toEqual({ value: 'done' });
    expect(jobs.get(job.id)).toMatchObject({ status: 'completed', result: { value: 'done' }, error: null });
    expect(seen.map((r) => r.status)).toEqual(['running', 'running', 'completed']);
    expect(seen[1]?.progress).toEqual({ step: 1 });
  });

  it('says why a job failed, in the error envelope terms, and hides unexpected errors', async () => {
    const jobs = new JobRegistry();
    const busy = jobs.start('test.busy', {}, () =>
      Promise.reject(new HeadsetdError('device_busy', 'EEG acquisition is running.', { why: 'eeg' })),
    );
    await expect(busy.settled).rejects.toThrow('EEG acquisition');
    expect(jobs.get(busy.id)).toMatchObject({
      status: 'failed',
      error: { code: 'device_busy', message: 'EEG acquisition is running.', details: { why: 'eeg' } },
    });
    const bug = jobs.start('test.bug', {}, () =>
      Promise.reject(new TypeError('x is undefined at /src/a.ts:1')),
    );
    await expect(bug.settled).rejects.toThrow();
    expect(jobs.get(bug.id)?.error).toEqual({
      code: 'internal_error',
      message: 'The operation failed unexpectedly; see the service log.',
    });
  });

  it('cancels a running job and answers once it has stopped; a finished job is answered as it is', async () => {
    const jobs = new JobRegistry();
    const op = controllable();
    const job = jobs.start('test.long', {}, op.run);
    const record = await jobs.cancel(job.id);
    expect(record).toMatchObject({ status: 'cancelled', error: { code: 'operation_cancelled' } });
    await expect(job.settled).rejects.toMatchObject({ code: 'operation_cancelled' });
    expect(await jobs.cancel(job.id)).toMatchObject({ status: 'cancelled' });
    expect(await jobs.cancel('unknown')).toBeUndefined();
  });

  it('keeps finished jobs for a bounded time and number, and running ones always', async () => {
    let now = 1_000_000;
    const jobs = new JobRegistry({ kept: 3, retentionMs: 60_000, now: () => now });
    const running = jobs.start('test.running', {}, controllable().run);
    const finished: string[] = [];
    for (let i = 0; i < 5; i++) {
      const job = jobs.start(`test.${i}`, {}, () => Promise.resolve({ i }));
      await job.settled;
      finished.push(job.id);
      now += 1000;
    }
    const trigger = jobs.start('test.trigger', {}, () => Promise.resolve({}));
    // The three newest finished jobs stay (the trigger is still running when pruning happens).
    expect(jobs.list().map((r) => r.operation)).toEqual([
      'test.trigger',
      'test.4',
      'test.3',
      'test.2',
      'test.running',
    ]);
    expect(jobs.get(finished[0] ?? '')).toBeUndefined();
    await trigger.settled;
    now += 120_000;
    expect(jobs.list().map((r) => r.id)).toEqual([running.id]);
  });
});

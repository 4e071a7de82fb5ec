import { readFileSync, readlinkSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { TIMER_SLACK_NS, tightenTimerSlack } from './timer-slack.js';

const OWN_SLACK = `Number(require('node:fs').readFileSync('/proc/' + require('node:fs').readlinkSync('/proc/thread-self').split('/').pop() + '/timerslack_ns', 'utf8'))`;

function ownSlack(): number {
  const tid = readlinkSync('/proc/thread-self').split('/').pop();
  return Number(readFileSync(`/proc/${tid}/timerslack_ns`, 'utf8'));
}

describe.skipIf(process.platform !== 'linux')('tightenTimerSlack', () => {
  it("sets the calling thread's timer slack to a microsecond, once", () => {
    expect(tightenTimerSlack()).toBe(true);
    expect(ownSlack()).toBe(TIMER_SLACK_NS);
    expect(tightenTimerSlack()).toBe(true);
    expect(ownSlack()).toBe(TIMER_SLACK_NS);
  });

  it('leaves the threads already running as they were', async () => {
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       parentPort.on('message', () => parentPort.postMessage(${OWN_SLACK}));`,
      { eval: true },
    );
    const theirs = (): Promise<number> =>
      new Promise<number>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
        worker.postMessage('slack?');
      });
    const before = await theirs();
    tightenTimerSlack();
    expect(await theirs()).toBe(before);
    await worker.terminate();
  });
});

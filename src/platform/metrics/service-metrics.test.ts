import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { descendantCount } from './service-metrics.js';
import { scratchDir } from '../../../test/support/scratch.js';

describe('descendantCount', () => {
  it('counts children and grandchildren of a process, and nothing once they are gone', async () => {
    const before = descendantCount(process.pid) ?? 0;
    // A shell that starts a sleep: two descendants of this process.
    const child = spawn('sh', ['-c', 'sleep 30 & echo $!; wait'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const sleepPid = Number(String((await once(child.stdout, 'data'))[0]).trim());
    expect(descendantCount(process.pid)).toBe(before + 2);
    expect(descendantCount(child.pid!)).toBe(1);
    const exited = once(child, 'exit');
    process.kill(sleepPid, 'SIGKILL');
    await exited;
    expect(descendantCount(process.pid)).toBe(before);
  });

  it('answers null without a /proc to read', () => {
    // A directory of its own that is not there (a fixed path such as /nonexistent may exist).
    const missing = path.join(scratchDir('headsetd-proc'), 'proc');
    expect(descendantCount(process.pid, missing)).toBeNull();
  });
});

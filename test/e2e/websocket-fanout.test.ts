/**
 * 200 WebSocket clients on one websocket node, and one more that never reads: every reading
 * client gets every frame from its first on (no seq gap), the node skips frames only for the
 * stalled client (one slow client, its drops counted in framesDropped) and so holds at most
 * `clientBufferBytes` for it. The service runs in a network namespace whose TCP buffers are small
 * (test/e2e/websocket-fanout-child.ts), so the stalled client's socket fills within a second; where
 * the kernel refuses unprivileged namespaces the test is skipped.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { seqGaps } from '../runtime/helpers.js';
import { tempDataDir } from '../support/service.js';
import { testScript } from '../support/test-scripts.js';

/** Brings loopback up and makes TCP buffers small, then runs the command given. */
const NETNS = [
  'ip link set lo up',
  'echo "4096 16384 65536" > /proc/sys/net/ipv4/tcp_wmem',
  'echo "4096 16384 65536" > /proc/sys/net/ipv4/tcp_rmem',
  'exec "$@"',
].join(' && ');

function canUseNetns(): boolean {
  return spawnSync('unshare', ['-rn', 'sh', '-c', NETNS, 'sh', 'true'], { timeout: 10_000 }).status === 0;
}

interface Report {
  slow: { slowClients: number; clientBufferBytes: number; metrics: { framesDropped: number } };
  after: { clients: number; slowClients: number; metrics: { framesDropped: number; itemsProcessed: number } };
  fast: number[][];
  stalledFrames: number;
  exit: { code: number | null; signal: string | null };
}

describe.skipIf(!canUseNetns())('one websocket node, 200 clients and one that never reads', () => {
  test('every reading client gets every frame; only the stalled one loses frames, bounded by clientBufferBytes', () => {
    const child = path.join(import.meta.dirname, 'websocket-fanout-child.ts');
    const out = execFileSync(
      'unshare',
      ['-rn', 'sh', '-c', NETNS, 'sh', process.execPath, ...testScript(child), tempDataDir()],
      { encoding: 'utf8', timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
    );
    const report = JSON.parse(out) as Report;
    expect(report.fast).toHaveLength(200);
    report.fast.forEach((seqs, i) => {
      expect(seqs.length, `client ${i}`).toBeGreaterThanOrEqual(50);
      expect(seqGaps(seqs), `client ${i}`).toEqual([]);
    });
    // One slow client at a time, never the 200 readers; its frames are skipped, not queued.
    expect(report.slow.slowClients).toBe(1);
    expect(report.slow.clientBufferBytes).toBe(65536);
    expect(report.after.slowClients).toBe(1);
    expect(report.after.clients).toBe(201);
    expect(report.after.metrics.framesDropped).toBeGreaterThan(report.slow.metrics.framesDropped);
    // Each skipped frame is one the stalled client would have held: at most one per frame processed.
    expect(report.after.metrics.framesDropped).toBeLessThanOrEqual(report.after.metrics.itemsProcessed);
    expect(report.exit).toEqual({ code: 0, signal: null });
  }, 90_000);
});

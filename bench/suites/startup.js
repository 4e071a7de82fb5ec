/**
 * service.startup.user: start-up as a user starts the service, against a bare one-route Fastify
 * server started alternately with it (bench/lib/bare-server.mjs, Fastify's default: no logger).
 * `node dist/headsetd.mjs serve --port 0 --data-dir <fresh>` with the default logging, from spawn
 * to its listening line on stdout; each start gets a new empty data directory (migrations, the
 * simulated headset, everything a first start does). STARTS pairs, order swapped every pair; the
 * ratio is the median of headsetd's times ÷ the median of the bare server's. Budget 1.3.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { URL } from 'node:url';
import { median } from '../lib/measure.js';
import { result } from '../lib/result.js';
import { SERVICE_CLI } from '../lib/service.js';
import { timeToListen } from '../lib/time-to-listen.js';

const STARTS = 9;
const BARE = new URL('../lib/bare-server.mjs', import.meta.url).pathname;

async function headsetdStart() {
  const dataDir = mkdtempSync(join(tmpdir(), 'headsetd-bench-start-'));
  try {
    return await timeToListen([SERVICE_CLI, 'serve', '--port', '0', '--data-dir', dataDir]);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function runStartup(report) {
  // One of each first: the page cache holds both programs' files, as on a device that ran them.
  await headsetdStart();
  await timeToListen([BARE, 'fastify']);
  const ours = [];
  const bare = [];
  for (let i = 0; i < STARTS; i++) {
    if (i % 2 === 0) {
      ours.push(await headsetdStart());
      bare.push(await timeToListen([BARE, 'fastify']));
    } else {
      bare.push(await timeToListen([BARE, 'fastify']));
      ours.push(await headsetdStart());
    }
  }
  const r = result({
    id: 'service.startup.user',
    title:
      'start-up to the listening line as a user starts it (default logging, fresh data dir) vs bare Fastify',
    ratio: median(ours) / median(bare),
    ratioOf: 'median ms of headsetd ÷ median ms of a bare one-route Fastify server, started alternately',
    max: 1.3,
    absolute: {
      headsetdMs: median(ours),
      bareFastifyMs: median(bare),
      headsetdMinMs: Math.min(...ours),
      bareFastifyMinMs: Math.min(...bare),
    },
  });
  report(r);
  return [r];
}

/**
 * cli.client-command: the CPU of a client command, `headsetd streams list --url URL` against a
 * running service (started once, with the default logging, for this), against bare Node making the
 * same request with node:http (bench/lib/bare-client.mjs), the two run alternately COMMANDS times
 * each; CPU (user + system, every thread) to the process's exit (bench/lib/command-cpu.js). The
 * ratio is the median of the command's CPU ÷ the median of the bare request's. Budget 1.6: the
 * command within about 0.1 s of CPU of bare Node here (bare Node's request: ~0.15–0.2 s).
 *
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
import { SERVICE_CLI, startService } from '../lib/service.js';
import { commandCpuMs } from '../lib/command-cpu.js';
import { timeToListen } from '../lib/time-to-listen.js';

const STARTS = 9;
const COMMANDS = 11;
const BARE = new URL('../lib/bare-server.mjs', import.meta.url).pathname;
const BARE_CLIENT = new URL('../lib/bare-client.mjs', import.meta.url).pathname;

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
  return [r, await clientCommand(report)];
}

async function clientCommand(report) {
  const service = await startService({ logLevel: null });
  const ours = [];
  const bare = [];
  const bareNode = [];
  try {
    const command = () => commandCpuMs([SERVICE_CLI, 'streams', 'list', '--url', service.url]);
    const request = () => commandCpuMs([BARE_CLIENT, `${service.url}/stream/streams`]);
    // One of each first, as for the starts.
    await command();
    await request();
    for (let i = 0; i < COMMANDS; i++) {
      const pair = i % 2 === 0 ? [command, request] : [request, command];
      for (const run of pair) {
        const { ms, code } = await run();
        if (code !== 0) throw new Error(`a client command of the bench exited with ${code}`);
        (run === command ? ours : bare).push(ms);
      }
      bareNode.push((await commandCpuMs(['-e', '0'])).ms);
    }
  } finally {
    await service.stop();
  }
  const r = result({
    id: 'cli.client-command',
    title: 'CPU of a client command (headsetd streams list) vs bare Node making the same request',
    ratio: median(ours) / median(bare),
    ratioOf: 'median CPU ms of the command ÷ median CPU ms of node:http doing its GET, run alternately',
    max: 1.6,
    absolute: { commandCpuMs: median(ours), bareRequestCpuMs: median(bare), bareNodeCpuMs: median(bareNode) },
  });
  report(r);
  return r;
}

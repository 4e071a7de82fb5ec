/**
 * Run inside a network namespace whose loopback interface also holds 10.9.9.1 (host-rule.test.ts):
 * starts the built service bound to 10.9.9.1, then to 0.0.0.0, and prints as JSON the status of
 * requests that name each address as `Host`, and of the dashboard's page asked for without the
 * token. Nothing leaves the namespace.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { scratchDir } from '../support/scratch.js';

const [cli = ''] = process.argv.slice(2);

function get(
  port: number,
  host: string,
  token: string | undefined,
  where = '/system/status',
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '10.9.9.1',
        port,
        path: where,
        headers: {
          host: `${host}:${port}`,
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function probe(bind: string): Promise<Record<string, number>> {
  const dataDir = scratchDir('headsetd-host-rule');
  const child = spawn(
    process.execPath,
    [cli, 'serve', '--host', bind, '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  try {
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (code) => {
        reject(new Error(`the service exited (${code}) before listening`));
      });
    });
    const port = Number(/:(\d+)$/.exec(line)?.[1]);
    const token = readFileSync(path.join(dataDir, 'token'), 'utf8').trim();
    return {
      bound: await get(port, '10.9.9.1', token),
      otherAddress: await get(port, '10.9.9.2', token),
      withoutToken: await get(port, '10.9.9.1', undefined),
      // The dashboard's page loads without the token, so that it can ask for it.
      dashboardWithoutToken: await get(port, '10.9.9.1', undefined, '/'),
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const results = { address: await probe('10.9.9.1'), wildcard: await probe('0.0.0.0') };
console.log(JSON.stringify(results));

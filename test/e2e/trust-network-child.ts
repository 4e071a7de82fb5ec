/**
 * Run by trust-network.test.ts inside a network namespace of its own (loopback, and a veth end d0
 * with 10.9.9.1/24 and the default route; nothing leaves it): starts the service with several
 * `--trust-network` settings and, for each, makes a request without a token from 10.9.9.1, a peer
 * beyond loopback. Reports the status answered, or `refused at start` with the service's message
 * when it would not start, and whether its log warned of networks trusted without the token.
 * Prints one JSON line.
 */
import { request } from 'node:http';
import { startService } from '../support/service.js';

const PEER = '10.9.9.1';

/** A tokenless GET /system/status from PEER to the service at PEER:port; its status and what it says of the token. */
function tokenless(port: number): Promise<{ status: number; tokenWaived?: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: PEER, localAddress: PEER, port, path: '/system/status', headers: { host: `${PEER}:${port}` } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
        });
        res.on('end', () => {
          const body = JSON.parse(text) as { status?: { tokenWaived?: unknown } };
          const waived = body.status?.tokenWaived;
          resolve({ status: res.statusCode ?? 0, ...(waived === undefined ? {} : { tokenWaived: waived }) });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function run(
  args: string[],
): Promise<{ status: number | string; warning?: string; tokenWaived?: unknown }> {
  let service: Awaited<ReturnType<typeof startService>>;
  try {
    service = await startService({ args: ['--log-level', 'warn', ...args] });
  } catch (error) {
    const message = (error as Error).message;
    return { status: `refused at start: ${message.slice(message.indexOf('headsetd: '))}` };
  }
  try {
    const answer = await tokenless(service.port);
    const warning = service.stderr.find((line) => line.includes('need no token') || line.includes('WARNING'));
    return { ...answer, ...(warning === undefined ? {} : { warning }) };
  } finally {
    await service.stop();
  }
}

const report = {
  other: await run(['--host', PEER, '--trust-network', '10.8.0.0/16']),
  own: await run(['--host', PEER, '--trust-network', '10.9.9.0/24']),
  everyIpv4: await run(['--host', PEER, '--trust-network', '0.0.0.0/0']),
  mapped: await run(['--host', '::', '--trust-network', '::/80']),
  mappedAny: await run(['--host', '::', '--trust-network', '::/80', '--trust-network-any']),
};
process.stdout.write(`${JSON.stringify(report)}\n`);

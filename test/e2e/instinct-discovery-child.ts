/**
 * Run by instinct-sdk-discovery.test.ts inside a network namespace of its own (loopback, and a veth
 * end d0 with 10.9.9.1/24 and the default route): starts the service with several settings and,
 * for each, broadcasts the maker's SDK discovery query as the SDK does (`INSTINCT_DISCOVER:<port>`
 * to 255.255.255.255:48010 from a socket with SO_BROADCAST) and reports whether a reply came, from
 * which address, and whether UDP 48010 is open at all. Prints one JSON line.
 */
import { createSocket } from 'node:dgram';
import { sdkCall } from '../support/instinct-client.js';
import { startService } from '../support/service.js';

/** The sender of the first reply, or 'refused' when nothing listens on 48010 (ICMP port unreachable). */
async function discover(): Promise<string> {
  const receive = createSocket('udp4');
  await new Promise<void>((resolve) => receive.bind(0, '0.0.0.0', resolve));
  const replyPort = receive.address().port;
  const reply = new Promise<string>((resolve) => {
    receive.once('message', (_message, from) => {
      resolve(from.address);
    });
  });
  // Nothing listening: a connected socket's send to d0's address is answered by ICMP port unreachable.
  const probe = createSocket('udp4');
  const refused = new Promise<string>((resolve) => {
    probe.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED') resolve('refused');
    });
  });
  await new Promise<void>((resolve) => {
    probe.connect(48010, '10.9.9.1', resolve);
  });
  const broadcast = createSocket('udp4');
  await new Promise<void>((resolve) => broadcast.bind(0, resolve));
  broadcast.setBroadcast(true);
  broadcast.send(`INSTINCT_DISCOVER:${replyPort}`, 48010, '255.255.255.255');
  // The port-unreachable error is reported on a later send: keep sending until one settles. A
  // listening responder ignores these (they are no query).
  const poke = setInterval(() => {
    probe.send('not a discovery query');
  }, 50);
  const result = await Promise.race([reply, refused]);
  clearInterval(poke);
  for (const s of [receive, probe, broadcast]) s.close();
  return result;
}

async function run(args: string[]) {
  const service = await startService({ args: ['--port', '42069', ...args] });

  try {
    const found = await discover();

    let sdk: string;
    try {
      const answer = await sdkCall(
        `http://${found === 'refused' ? '10.9.9.1' : found}:42069`,
        'GET',
        '/system/system/hostname',
        {
          timeoutMs: 5000,
        },
      );
      sdk = `ok ${JSON.stringify(answer.body)}`;
    } catch (error) {
      const message = (error as Error).message;
      sdk = /^\d{3} /.test(message) ? message.slice(0, 3) : 'unreachable';
    }
    return { found, sdk };
  } finally {
    await service.stop();
  }
}

const report = {
  defaults: await run([]),
  beyondLoopback: await run(['--host', '10.9.9.1']),
  beyondLoopbackOff: await run(['--host', '10.9.9.1', '--discovery', 'off']),
  loopbackOn: await run(['--discovery', 'on']),
  untrusted: await run(['--host', '10.9.9.1', '--allow-host', '10.9.9.1']),
  trusted: await run(['--host', '10.9.9.1', '--trust-network', '10.9.9.0/24']),
};
process.stdout.write(`${JSON.stringify(report)}\n`);

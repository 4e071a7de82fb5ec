/**
 * runClient in a process it does not own (a test's, or any caller's): Ctrl-C is the environment's
 * signal when one is given, no SIGINT listener is left behind on any way out, a command closes
 * its connections when it ends, and an error no command turns into an exit code reads as the
 * program reports it.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TextSink } from '../../test/support/text-sink.js';
import { reportFailure } from './failures.js';
import { type ClientEnvironment, runClient } from './index.js';

/** Answers every request with `{logs: []}`, or with the envelope of a 404 under /missing. */
let server: http.Server;
let url: string;
const sockets = new Set<Socket>();
let requested: () => void = () => undefined;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    requested();
    const missing = request.url?.startsWith('/missing') === true;
    response.writeHead(missing ? 404 : 200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify(
        missing
          ? { success: false, error: { code: 'stream_not_found', message: 'No such stream' } }
          : { logs: [] },
      ),
    );
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function environment(extra: Partial<ClientEnvironment> = {}) {
  const stdout = new TextSink();
  const stderr = new TextSink();
  const env: ClientEnvironment = {
    env: {},
    stdout,
    stderr,
    readStdin: () => '',
    cwd: process.cwd(),
    defaultDataDir: '/nonexistent',
    ...extra,
  };
  return { env, stdout, stderr };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('SIGINT', () => {
  test('listened to while a command runs without a signal, and no longer on any way out', async () => {
    const before = process.listenerCount('SIGINT');
    let during = -1;
    const counting = new TextSink(false, () => {
      during = process.listenerCount('SIGINT');
    });
    const help = environment({ stdout: counting });
    expect(await runClient(['streams', '--help'], help.env)).toBe(0);
    expect(during).toBe(before + 1);
    expect(process.listenerCount('SIGINT')).toBe(before);

    const ways: [string[], number][] = [
      [['streams', 'frob'], 2],
      [['--url', `http://127.0.0.1:${String(await closedPort())}`, 'streams', 'list'], 3],
      [['--url', `${url}/missing`, 'streams', 'list'], 1],
    ];
    for (const [args, code] of ways) {
      const run = environment();
      expect(await runClient(args, run.env), `${args.join(' ')}: ${run.stderr.text}`).toBe(code);
      expect(process.listenerCount('SIGINT'), args.join(' ')).toBe(before);
    }

    // An error no command turns into an exit code is thrown, the listener removed.
    const failing = new TextSink();
    failing.write = () => {
      throw new Error('stdout is gone');
    };
    await expect(runClient(['streams', '--help'], environment({ stdout: failing }).env)).rejects.toThrow(
      'stdout is gone',
    );
    expect(process.listenerCount('SIGINT')).toBe(before);
  });

  test("with the environment's signal, none is added: aborting it is Ctrl-C, and ends a follow with 0", async () => {
    const before = process.listenerCount('SIGINT');
    const controller = new AbortController();
    const run = environment({ signal: controller.signal });
    const first = new Promise<void>((resolve) => {
      requested = resolve;
    });
    const exited = runClient(['--url', url, 'streams', 'logs', 'some-id', 'node', '-f'], run.env);
    await first;
    expect(process.listenerCount('SIGINT')).toBe(before);
    controller.abort();
    expect(await exited, run.stderr.text).toBe(0);
    expect(process.listenerCount('SIGINT')).toBe(before);

    // Aborted before it starts: ended at once.
    const aborted = environment({ signal: AbortSignal.abort() });
    expect(await runClient(['--url', url, 'streams', 'logs', 'some-id', 'node', '-f'], aborted.env)).toBe(0);
  });
});

test('a command closes its connections when it ends (kept alive, they outlived it)', async () => {
  const run = environment();
  expect(await runClient(['--url', url, 'streams', 'logs', 'some-id', 'node'], run.env)).toBe(0);
  // None left idle in Node's global agent for the next request of the process (the client used it).
  expect(Object.keys(http.globalAgent.freeSockets)).toEqual([]);
  // Closed by the client: the server sees each socket close (the test's deadline, should one stay).
  await Promise.all(
    [...sockets].map(async (socket) => {
      if (!socket.closed) await once(socket, 'close');
    }),
  );
  expect(sockets.size).toBe(0);
});

test('the last-resort report reads as the program writes it: headsetd: MESSAGE, exit 1', () => {
  const stderr = new TextSink();
  expect(reportFailure(new Error('something broke'), stderr)).toBe(1);
  expect(stderr.text).toBe('headsetd: something broke\n');
  const inUse = new TextSink();
  const error = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:42069'), {
    code: 'EADDRINUSE',
  });
  reportFailure(error, inUse);
  expect(inUse.text).toBe(
    'headsetd: the address is already in use (address already in use 127.0.0.1:42069); choose another with --port\n',
  );
});

/**
 * The serial link (src/platform/serial/serial-link.ts) on a real pseudo-terminal pair (socat):
 * bytes both ways in order, the port locked against a second opener, the other side's end
 * reported once and our own close not at all, and read in a worker thread (the device's thread
 * reads the Cyton so), where the `serialport` package's own reader aborts the process.
 */
import { Worker } from 'node:worker_threads';
import { afterEach, expect, test } from 'vitest';
import { openSerialLink, type SerialLink } from '../../src/platform/serial/serial-link.js';
import { ROOT } from '../support/service.js';
import { type PtyPair, ptyPair } from '../support/pty-pair.js';
import { eventually } from '../support/wait.js';

const LINE = { baudRate: 115_200 };
const opened: { pairs: PtyPair[]; links: SerialLink[] } = { pairs: [], links: [] };

afterEach(async () => {
  for (const link of opened.links.splice(0)) await link.close();
  for (const pair of opened.pairs.splice(0)) await pair.kill();
});

async function pairOfLinks(): Promise<{ pair: PtyPair; board: SerialLink; host: SerialLink }> {
  const pair = await ptyPair();
  opened.pairs.push(pair);
  const board = await openSerialLink(pair.board, LINE);
  const host = await openSerialLink(pair.host, LINE);
  opened.links.push(board, host);
  return { pair, board, host };
}

function collect(link: SerialLink): number[] {
  const bytes: number[] = [];
  link.onData((chunk) => {
    bytes.push(...chunk);
  });
  return bytes;
}

test('bytes cross both ways, every one and in order, however the writes are issued', async () => {
  const { board, host } = await pairOfLinks();
  const atHost = collect(host);
  const atBoard = collect(board);
  // 400 writes of 33 bytes issued at once: they go one at a time, in the order given.
  const expected: number[] = [];
  const writes: Promise<void>[] = [];
  for (let i = 0; i < 400; i++) {
    const packet = Uint8Array.from({ length: 33 }, (_, j) => (i * 33 + j) % 256);
    expected.push(...packet);
    writes.push(board.write(packet));
  }
  await Promise.all(writes);
  await host.write('b');
  await eventually(() => atHost.length >= expected.length && atBoard.length >= 1, 10_000, 'the bytes');
  expect(atHost).toEqual(expected);
  expect(atBoard).toEqual(['b'.charCodeAt(0)]);
});

test('a port already open is refused to a second opener (locked)', async () => {
  const { pair } = await pairOfLinks();
  await expect(openSerialLink(pair.host, LINE)).rejects.toMatchObject({
    code: 'EBUSY',
    message: `another program holds ${pair.host} (its lock is taken)`,
  });
});

test('a port that does not exist is refused with the system’s reason', async () => {
  await expect(openSerialLink('/dev/ttyUSB-headsetd-absent', LINE)).rejects.toThrow(
    /No such file or directory/,
  );
});

test('the other side gone is reported once; a close of ours is not reported', async () => {
  const { pair, board, host } = await pairOfLinks();
  const hostEnds: (Error | undefined)[] = [];
  const boardEnds: (Error | undefined)[] = [];
  host.onClose((error) => hostEnds.push(error));
  board.onClose((error) => boardEnds.push(error));
  await board.close();
  await pair.kill();
  await eventually(() => hostEnds.length > 0, 10_000, 'the end reported');
  await expect(host.write('v')).rejects.toThrow(/closed/);
  // Our own close after the end: it waits for the reader's last event, and reports nothing more.
  await host.close();
  expect(hostEnds).toHaveLength(1);
  expect(boardEnds).toHaveLength(0);
});

test('a link opened in a worker thread is read on that thread’s loop', async () => {
  const { pair, board } = await pairOfLinks();
  // The host end is opened by the worker, not here.
  const hostLink = opened.links.pop() as SerialLink;
  await hostLink.close();
  const module = new URL('dist/platform/serial/serial-link.js', `file://${ROOT}/`).href;
  const worker = new Worker(
    `
    const { parentPort, workerData } = require('node:worker_threads');
    import(workerData.module).then(async ({ openSerialLink }) => {
      const link = await openSerialLink(workerData.path, { baudRate: 115200 });
      let bytes = 0;
      link.onData((chunk) => {
        bytes += chunk.length;
        if (bytes >= 3300) {
          link.write('ok').then(() => link.close()).then(() => parentPort.postMessage({ bytes }));
        }
      });
      parentPort.postMessage('open');
    }).catch((error) => parentPort.postMessage({ error: String(error) }));
    `,
    { eval: true, workerData: { module, path: pair.host } },
  );
  try {
    const messages: unknown[] = [];
    worker.on('message', (message: unknown) => messages.push(message));
    await eventually(
      () => messages.includes('open') || messages.length > 0,
      10_000,
      'the worker’s link open',
    );
    expect(messages[0]).toBe('open');
    const atBoard = collect(board);
    for (let i = 0; i < 100; i++) await board.write(new Uint8Array(33).fill(0xa0));
    await eventually(() => messages.length >= 2 && atBoard.length >= 2, 10_000, 'the worker’s answer');
    expect(messages[1]).toEqual({ bytes: 3300 });
    expect(String.fromCharCode(...atBoard)).toBe('ok');
  } finally {
    await worker.terminate();
  }
});

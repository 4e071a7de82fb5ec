import { createSocket, type Socket } from 'node:dgram';
import { afterEach, describe, expect, test } from 'vitest';
import {
  DISCOVERY_LIMITS,
  type DiscoveryResponder,
  discoveryEnabled,
  MAX_REPLY_FACTOR,
  replyPort,
  replyText,
  startDiscoveryResponder,
} from './discovery.js';

/** A host name of 253 characters, the longest a name may be. */
const LONGEST_NAME = ['a'.repeat(63), 'b'.repeat(63), 'c'.repeat(63), 'd'.repeat(61)].join('.');

describe("the maker's SDK discovery", () => {
  test('only the SDK query is answered, with the port it names', () => {
    expect(replyPort(Buffer.from('INSTINCT_DISCOVER:50123'))).toBe(50123);
    expect(replyPort(Buffer.from('INSTINCT_DISCOVER:7'))).toBe(7);
    for (const text of [
      'INSTINCT_DISCOVER:0',
      'INSTINCT_DISCOVER:70000',
      'INSTINCT_DISCOVER:',
      'hello',
      'INSTINCT_DISCOVER:1 2',
    ]) {
      expect(replyPort(Buffer.from(text)), text).toBeUndefined();
    }
  });

  // Regression: the query was trimmed first, so these were answered.
  test.each([
    ' INSTINCT_DISCOVER:50123',
    'INSTINCT_DISCOVER:50123\n',
    'INSTINCT_DISCOVER:50123\r\n',
    '\tINSTINCT_DISCOVER:50123 ',
    `${' '.repeat(40)}INSTINCT_DISCOVER:50123`,
    'INSTINCT_DISCOVER:050123',
  ])('%j is not the exact query and is not answered', (text) => {
    expect(replyPort(Buffer.from(text))).toBeUndefined();
  });

  test('never by default: auto answers only beyond loopback; on and off say so', () => {
    expect(discoveryEnabled('auto', '127.0.0.1')).toBe(false);
    expect(discoveryEnabled('auto', 'localhost')).toBe(false);
    expect(discoveryEnabled('auto', '0.0.0.0')).toBe(true);
    expect(discoveryEnabled('on', '127.0.0.1')).toBe(true);
    expect(discoveryEnabled('off', '0.0.0.0')).toBe(false);
  });

  test('the reply names the device, and leaves its name out rather than exceed twice the query', () => {
    expect(replyText('lab-1', 42069, 23)).toBe('INSTINCT_DEVICE:lab-1:42069');
    expect(replyText(LONGEST_NAME, 42069, 23)).toBe('INSTINCT_DEVICE::42069');
    expect(replyText(LONGEST_NAME, 42069, 10)).toBe('INSTINCT_DEVICE');
    for (const bytes of [19, 20, 21, 22, 23]) {
      expect(Buffer.byteLength(replyText(LONGEST_NAME, 42069, bytes))).toBeLessThanOrEqual(
        bytes * MAX_REPLY_FACTOR,
      );
    }
  });
});

describe('the discovery responder on its socket (loopback only)', () => {
  let responder: DiscoveryResponder | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.close();
    await responder?.close();
    responder = undefined;
  });

  /** A UDP socket on `address`, with every datagram it received. */
  async function peer(address: string): Promise<{ socket: Socket; port: number; received: Buffer[] }> {
    const socket = createSocket('udp4');
    sockets.push(socket);
    const received: Buffer[] = [];
    socket.on('message', (message) => {
      received.push(message);
    });
    await new Promise<void>((resolve) => socket.bind(0, address, resolve));
    return { socket, port: socket.address().port, received };
  }

  function send(socket: Socket, text: string, port: number, address = '127.0.0.1'): Promise<void> {
    return new Promise((resolve, reject) => {
      socket.send(text, port, address, (error) => {
        if (error) reject(error);
        else resolve();
      });
    });
  }

  /** Resolves once `received` holds `count` datagrams. */
  function until(received: Buffer[], count: number, socket: Socket): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (received.length < count) return;
        socket.off('message', check);
        resolve();
      };
      socket.on('message', check);
      check();
    });
  }

  // Regression: a 253-character name was answered with 14.5 times the shortest query's bytes.
  test('with the longest host name, a reply is at most twice the query it answers', async () => {
    responder = await startDiscoveryResponder({ port: 0, hostname: () => LONGEST_NAME, apiPort: 42069 });
    const a = await peer('127.0.0.1');
    // Shortest and longest query (a one- and a five-digit reply port): both name a's port.
    const query = `INSTINCT_DISCOVER:${a.port}`;
    await send(a.socket, query, responder.port);
    await until(a.received, 1, a.socket);
    expect(a.received[0]?.length).toBeLessThanOrEqual(Buffer.byteLength(query) * MAX_REPLY_FACTOR);
    expect(a.received[0]?.toString()).toBe('INSTINCT_DEVICE::42069');
  });

  // Regression: every query was answered, however many one sender (or a forged one) sent.
  test('one peer is answered a burst of queries at most; another peer is still answered', async () => {
    // The clock stands still, so that no answer is earned back while the test runs.
    responder = await startDiscoveryResponder({
      port: 0,
      hostname: () => 'lab-1',
      apiPort: 42069,
      now: () => 0,
    });
    const flooding = await peer('127.0.0.1');
    const other = await peer('127.0.0.2');
    const sent = DISCOVERY_LIMITS.peer.burst * 5;
    for (let i = 0; i < sent; i += 1) {
      await send(flooding.socket, `INSTINCT_DISCOVER:${flooding.port}`, responder.port);
    }
    // The responder reads its datagrams in order: once the other peer's reply is in, it has
    // answered (or not) every query of the flooding one, whose replies were sent before.
    await send(other.socket, `INSTINCT_DISCOVER:${other.port}`, responder.port);
    await until(other.received, 1, other.socket);
    expect(other.received[0]?.toString()).toBe('INSTINCT_DEVICE:lab-1:42069');
    // A datagram of its own, after those replies in its queue: once it is read, so are they.
    await send(flooding.socket, 'marker', flooding.port);
    await until(flooding.received, 1, flooding.socket);
    await new Promise<void>((resolve) => {
      const check = () => {
        if (flooding.received.some((m) => m.toString() === 'marker')) resolve();
        else flooding.socket.once('message', check);
      };
      check();
    });
    const replies = flooding.received.filter((m) => m.toString() !== 'marker');
    expect(replies).toHaveLength(DISCOVERY_LIMITS.peer.burst);
  });
});

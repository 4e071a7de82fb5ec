import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { SocketFanout } from './socket-fanout.js';

class FakeSocket extends EventEmitter {
  readyState = 1;
  bufferedAmount = 0;
  sent: (string | Uint8Array)[] = [];
  closedWith: [number | undefined, string | undefined] | undefined;
  send(data: string | Uint8Array): void {
    this.sent.push(data);
  }
  close(code?: number, reason?: string): void {
    this.closedWith = [code, reason];
    this.emit('close');
  }
}

describe('SocketFanout', () => {
  it('skips messages for a client over its limit without holding back the others', () => {
    const fanout = new SocketFanout({ limitBytes: 100 });
    const fast = new FakeSocket();
    const slow = new FakeSocket();
    fanout.add(fast);
    fanout.add(slow);
    slow.bufferedAmount = 1000;
    for (let i = 0; i < 5; i++) fanout.send({ i });
    expect(fast.sent).toHaveLength(5);
    expect(slow.sent).toHaveLength(0);
    expect(fanout.dropped).toBe(5);
    expect(fanout.slowClients).toBe(1);
    slow.bufferedAmount = 0;
    fanout.send({ i: 5 });
    expect(slow.sent).toEqual(['{"i":5}']);
    expect(fanout.slowClients).toBe(0);
  });

  it("counts each client's lost messages when it is sent one again: the gaps it will see", () => {
    const caughtUp: [FakeSocket, number][] = [];
    const fanout = new SocketFanout<FakeSocket>({
      limitBytes: 100,
      onCaughtUp: (socket, lost) => caughtUp.push([socket, lost]),
    });
    const fast = new FakeSocket();
    const slow = new FakeSocket();
    fanout.add(fast);
    fanout.add(slow);
    for (let i = 0; i < 10; i++) {
      // The slow client is over its limit for messages 2-4 and 7-8.
      slow.bufferedAmount = [2, 3, 4, 7, 8].includes(i) ? 1000 : 0;
      fanout.send(i);
    }
    expect(slow.sent).toEqual(['0', '1', '5', '6', '9']);
    expect(caughtUp).toEqual([
      [slow, 3],
      [slow, 5],
    ]);
    expect(fanout.lostBy(slow)).toBe(5);
    expect(fanout.lostBy(fast)).toBe(0);
    // Skips not yet followed by a message are in `dropped` only: the client cannot see them yet.
    slow.bufferedAmount = 1000;
    fanout.sendText(() => 'x');
    expect(fanout.lostBy(slow)).toBe(5);
    expect(fanout.dropped).toBe(6);
    slow.bufferedAmount = 0;
    fanout.sendText(() => 'y');
    expect(fanout.lostBy(slow)).toBe(6);
    expect(caughtUp.at(-1)).toEqual([slow, 6]);
  });

  it('reports when the first client arrives and the last leaves', () => {
    const changes: boolean[] = [];
    const fanout = new SocketFanout({ limitBytes: 100, onActive: (active) => changes.push(active) });
    const a = new FakeSocket();
    const b = new FakeSocket();
    fanout.add(a);
    fanout.add(b);
    a.close();
    b.close();
    expect(changes).toEqual([true, false]);
    expect(fanout.size).toBe(0);
  });

  it('forgets a client whose socket fails', () => {
    const fanout = new SocketFanout();
    const socket = new FakeSocket();
    fanout.add(socket);
    socket.emit('error');
    expect(fanout.size).toBe(0);
  });

  it('makes one payload per message, and none when every client skips it or is not open', () => {
    const fanout = new SocketFanout({ limitBytes: 10 });
    const a = new FakeSocket();
    const b = new FakeSocket();
    const closing = new FakeSocket();
    closing.readyState = 2;
    fanout.add(a);
    fanout.add(b);
    fanout.add(closing);
    let encoded = 0;
    const payload = new Uint8Array([1, 2, 3]);
    const encode = (): Uint8Array => {
      encoded++;
      return payload;
    };
    expect(fanout.sendPayload(encode)).toBe(0);
    expect(encoded).toBe(1);
    expect(a.sent[0]).toBe(payload);
    expect(b.sent[0]).toBe(payload);
    expect(closing.sent).toHaveLength(0);
    a.bufferedAmount = 11;
    b.bufferedAmount = 11;
    expect(fanout.sendPayload(encode)).toBe(2);
    expect(encoded).toBe(1);
    expect(fanout.dropped).toBe(2);
  });

  it('counts a client exactly at its limit as keeping up', () => {
    const fanout = new SocketFanout({ limitBytes: 10 });
    const socket = new FakeSocket();
    socket.bufferedAmount = 10;
    fanout.add(socket);
    expect(fanout.send('x')).toBe(0);
    expect(socket.sent).toEqual(['"x"']);
  });

  it('closes every client with 1001 going away', () => {
    const fanout = new SocketFanout();
    const socket = new FakeSocket();
    fanout.add(socket);
    fanout.closeAll('bye');
    expect(socket.closedWith).toEqual([1001, 'bye']);
    expect(fanout.size).toBe(0);
  });
});

describe('SocketFanout.sendText on real websockets', () => {
  it('frames a text message once and every client reads it whole, compressed or not', async () => {
    const { WebSocket, WebSocketServer } = await import('ws');
    const servers: InstanceType<typeof WebSocketServer>[] = [];
    const fanout = new SocketFanout();
    const clients: InstanceType<typeof WebSocket>[] = [];
    const received: string[][] = [];
    for (const perMessageDeflate of [false, true]) {
      const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate });
      servers.push(server);
      await new Promise<void>((resolve) => {
        server.once('listening', () => {
          resolve();
        });
      });
      server.on('connection', (socket) => {
        fanout.add(socket);
      });
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      for (let i = 0; i < 2; i++) {
        const client = new WebSocket(`ws://127.0.0.1:${port}/`);
        const messages: string[] = [];
        received.push(messages);
        client.on('message', (data, isBinary) => {
          messages.push(`${isBinary ? 'binary' : 'text'}:${(data as Buffer).toString('utf8')}`);
        });
        await new Promise((resolve) => client.once('open', resolve));
        clients.push(client);
      }
    }
    while (fanout.size < 4) await new Promise((resolve) => setTimeout(resolve, 10));
    // Header lengths of 2, 4 and 10 bytes (payloads under 126, under 65 536, and longer); UTF-8.
    const texts = ['µV', 'x'.repeat(200), `${'é'.repeat(40_000)}end`];
    for (const text of texts) fanout.sendText(() => text);
    const want = texts.map((t) => `text:${t}`);
    while (received.some((m) => m.length < texts.length)) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    for (const messages of received) expect(messages).toEqual(want);
    for (const client of clients) client.terminate();
    for (const server of servers) server.close();
  });
});

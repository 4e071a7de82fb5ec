/** A live fan-out listens to its source only while a client is connected. */
import { Buffer } from 'node:buffer';
import { EventEmitter } from 'node:events';
import { describe, expect, test } from 'vitest';
import { liveSockets } from './live-sockets.js';

/** Enough of a `ws` socket: what it was sent, and how it was closed. */
class FakeSocket extends EventEmitter {
  readyState = 1;
  readonly bufferedAmount = 0;
  readonly sent: string[] = [];
  closed: number | undefined;
  send(data: string | Uint8Array): void {
    this.sent.push(typeof data === 'string' ? data : Buffer.from(data).toString('utf8'));
  }
  close(code: number): void {
    this.closed = code;
    this.readyState = 3;
    this.emit('close');
  }
}

function source() {
  let send: ((message: unknown) => void) | undefined;
  let subscriptions = 0;
  return {
    subscribe: (listener: (message: unknown) => void) => {
      send = listener;
      subscriptions++;
      return () => {
        send = undefined;
      };
    },
    emit: (message: unknown) => send?.(message),
    get subscribed() {
      return send !== undefined;
    },
    get subscriptions() {
      return subscriptions;
    },
  };
}

describe('liveSockets', () => {
  test('subscribes with the first client, sends to every client, unsubscribes after the last', () => {
    const events = source();
    const live = liveSockets(events.subscribe);
    expect(events.subscribed).toBe(false);
    const a = new FakeSocket();
    const b = new FakeSocket();
    live.add(a);
    live.add(b);
    expect(events.subscriptions).toBe(1);
    events.emit({ type: 'x' });
    expect(a.sent).toEqual(['{"type":"x"}']);
    expect(b.sent).toEqual(['{"type":"x"}']);
    a.emit('close');
    expect(events.subscribed).toBe(true);
    b.emit('close');
    expect(events.subscribed).toBe(false);
  });

  test('close unsubscribes and closes every client with 1001', () => {
    const events = source();
    const live = liveSockets(events.subscribe);
    const a = new FakeSocket();
    live.add(a);
    live.close();
    expect(events.subscribed).toBe(false);
    expect(a.closed).toBe(1001);
  });
});

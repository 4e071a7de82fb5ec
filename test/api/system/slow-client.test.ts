/**
 * A slow client of the EEG socket loses frames and never slows the others (docs/systems.md, WebSockets):
 * one client stops reading; the other must still receive every frame in order.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { CLIENT_SEND_LIMIT_BYTES } from '../../../src/streams/runtime/socket-fanout.js';
import { eventually } from '../../support/wait.js';
import { type SystemApp, systemApp } from './support.js';

describe('EEG socket with a stalled client', () => {
  let s: SystemApp;
  beforeEach(async () => {
    s = await systemApp({ guides: false });
  });
  afterEach(async () => {
    await s.close();
  });

  it('keeps delivering every frame to a reading client while a stalled one loses frames', async () => {
    const base = await s.listen();
    // 8 kHz × 19 channels is about 1.5 MB/s of JSON: the stalled client passes its 1 MiB limit within seconds.
    await s.app.inject({ method: 'PUT', url: '/system/sensors/eeg', payload: { samplingFrequency: 8000 } });
    const open = (socket: WebSocket) => new Promise((resolve) => socket.once('open', resolve));
    const fast = new WebSocket(`${base}/system/sensors/eeg/stream`);
    const slow = new WebSocket(`${base}/system/sensors/eeg/stream`);
    await Promise.all([open(fast), open(slow)]);
    // The texts are kept and decoded at the end: the reading client must keep up with ~1.5 MB/s on
    // a machine whose cores are busy, and decoding as it reads could make it fall behind and be
    // dropped as a stalled one is.
    const fastTexts: string[] = [];
    fast.on('message', (data: Buffer) => fastTexts.push(data.toString()));
    const slowTexts: string[] = [];
    slow.on('message', (data: Buffer) => slowTexts.push(data.toString()));
    // Stop reading the slow socket: the server's send buffer for it fills up.
    (slow as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
    await s.app.inject({ method: 'POST', url: '/system/sensors/eeg/stream' });
    // The server's side of the slow socket passes its limit (the kernel's buffers full first), and
    // the reading client goes on receiving frames past that moment: those the slow one loses.
    const server = (s.app as unknown as { websocketServer: { clients: Set<{ bufferedAmount: number }> } })
      .websocketServer;
    await eventually(
      () => [...server.clients].some((client) => client.bufferedAmount > CLIENT_SEND_LIMIT_BYTES),
      20_000,
      'the stalled client past its send limit',
    );
    const passedAt = fastTexts.length;
    await eventually(
      () => fastTexts.length > passedAt + 100,
      20_000,
      'frames sent while the stalled client is over its limit',
    );
    await s.app.inject({ method: 'DELETE', url: '/system/sensors/eeg/stream' });
    fast.close();
    // Reading again, the slow client receives what the server kept for it; the server's answer to
    // its close comes after all of it.
    const closed = new Promise((resolve) => slow.once('close', resolve));
    (slow as unknown as { _socket: { pause(): void; resume(): void } })._socket.resume();
    slow.close();
    await closed;
    const seqOf = (text: string): number => (JSON.parse(text) as { seq: number }).seq;
    const fastSeqs = fastTexts.map(seqOf);
    const slowSeqs = slowTexts.map(seqOf);

    expect(fastSeqs.length).toBeGreaterThan(passedAt + 100);
    for (let i = 1; i < fastSeqs.length; i++) expect(fastSeqs[i]).toBe((fastSeqs[i - 1] ?? 0) + 1);
    // The stalled client got the frames sent before it passed its limit, then lost the rest.
    expect(slowSeqs.length).toBeGreaterThan(0);
    // (100 frames reached the reading client after the limit was passed; a few may have been in
    // flight to it at that moment.)
    expect(slowSeqs.length).toBeLessThan(fastSeqs.length - 50);
    expect(slowSeqs.at(-1)).toBeLessThan((fastSeqs.at(-1) ?? 0) - 50);
  }, 20_000);
});

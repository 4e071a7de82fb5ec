/**
 * A slow client of the EEG socket loses frames and never slows the others (docs/systems.md, WebSockets):
 * one client stops reading; the other still receives frames in order, and misses none but those
 * the socket reports dropped for it.
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

  it('keeps delivering frames to a reading client while a stalled one loses them; a client misses only frames the socket dropped for it', async () => {
    const base = await s.listen();
    // 8 kHz × 19 channels is about 1.5 MB/s of JSON: the stalled client passes its 1 MiB limit within seconds.
    await s.app.inject({ method: 'PUT', url: '/system/sensors/eeg', payload: { samplingFrequency: 8000 } });
    const open = (socket: WebSocket) => new Promise((resolve) => socket.once('open', resolve));
    const fast = new WebSocket(`${base}/system/sensors/eeg/stream`);
    const slow = new WebSocket(`${base}/system/sensors/eeg/stream`);
    await Promise.all([open(fast), open(slow)]);
    // The reading client shares this process with the server and the device: on a busy machine a
    // pause of the process can put it a send limit behind, and it then loses frames as a stalled
    // client does. So it must show not that it lost none, but that every frame it misses is one
    // the socket reports dropped for it (nothing lost otherwise).
    const fastTexts: string[] = [];
    fast.on('message', (data: Buffer) => fastTexts.push(data.toString()));
    const slowTexts: string[] = [];
    slow.on('message', (data: Buffer) => slowTexts.push(data.toString()));
    // Stop reading the slow socket: the server's send buffer for it fills up.
    const connection = (socket: WebSocket) =>
      (socket as unknown as { _socket: { pause(): void; resume(): void; localPort: number } })._socket;
    connection(slow).pause();
    await s.app.inject({ method: 'POST', url: '/system/sensors/eeg/stream' });
    // The server's side of the slow socket passes its limit (the kernel's buffers full first), and
    // the reading client goes on receiving frames past that moment: those the slow one loses.
    type ServerSocket = WebSocket & { _socket: { remotePort: number } };
    const server = (s.app as unknown as { websocketServer: { clients: Set<ServerSocket> } }).websocketServer;
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
    // Every frame the server sent the reading client has arrived once its ping is answered (the
    // pong comes behind them); the socket's count for it is then final.
    await new Promise<void>((resolve) => {
      fast.once('pong', () => {
        resolve();
      });
      fast.ping();
    });
    const fastOnServer = [...server.clients].find((c) => c._socket.remotePort === connection(fast).localPort);
    expect(fastOnServer).toBeDefined();
    const droppedForFast = s.eegSockets.lostBy(fastOnServer!);
    fast.close();
    // Reading again, the slow client receives what the server kept for it; the server's answer to
    // its close comes after all of it.
    const closed = new Promise((resolve) => slow.once('close', resolve));
    connection(slow).resume();
    slow.close();
    await closed;
    const seqOf = (text: string): number => (JSON.parse(text) as { seq: number }).seq;
    const fastSeqs = fastTexts.map(seqOf);
    const slowSeqs = slowTexts.map(seqOf);

    expect(fastSeqs.length).toBeGreaterThan(passedAt + 100);
    // In order, each frame once; what is missing before the last one is what was dropped for it.
    for (let i = 1; i < fastSeqs.length; i++) expect(fastSeqs[i]).toBeGreaterThan(fastSeqs[i - 1] ?? 0);
    expect((fastSeqs.at(-1) ?? 0) - (fastSeqs[0] ?? 0) + 1 - fastSeqs.length).toBe(droppedForFast);
    // The stalled client got the frames sent before it passed its limit, then lost the rest.
    expect(slowSeqs.length).toBeGreaterThan(0);
    // (100 frames reached the reading client after the limit was passed; a few may have been in
    // flight to it at that moment.)
    expect(slowSeqs.length).toBeLessThan(fastSeqs.length - 50);
    expect(slowSeqs.at(-1)).toBeLessThan((fastSeqs.at(-1) ?? 0) - 50);
  }, 40_000);
});

/**
 * A slow client of the EEG socket loses frames and never slows the others (docs/systems.md, WebSockets):
 * one client stops reading; the other must still receive every frame in order.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
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
    const fastSeqs: number[] = [];
    fast.on('message', (data: Buffer) => fastSeqs.push((JSON.parse(data.toString()) as { seq: number }).seq));
    const slowSeqs: number[] = [];
    slow.on('message', (data: Buffer) => slowSeqs.push((JSON.parse(data.toString()) as { seq: number }).seq));
    // Stop reading the slow socket: the server's send buffer for it fills up.
    (slow as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
    await s.app.inject({ method: 'POST', url: '/system/sensors/eeg/stream' });
    await new Promise((resolve) => setTimeout(resolve, 6000));
    await s.app.inject({ method: 'DELETE', url: '/system/sensors/eeg/stream' });
    (slow as unknown as { _socket: { pause(): void; resume(): void } })._socket.resume();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    fast.close();
    slow.close();

    expect(fastSeqs.length).toBeGreaterThan(400);
    for (let i = 1; i < fastSeqs.length; i++) expect(fastSeqs[i]).toBe((fastSeqs[i - 1] ?? 0) + 1);
    // The stalled client got the frames sent before it passed its limit, then lost the rest.
    expect(slowSeqs.length).toBeGreaterThan(0);
    expect(slowSeqs.length).toBeLessThan(fastSeqs.length * 0.8);
    expect(slowSeqs.at(-1)).toBeLessThan(fastSeqs.at(-1) ?? 0);
  }, 20_000);
});

/* global console */
/**
 * The anchor of the end-to-end latency benchmark: a bare `ws` server that sends frames of the same
 * shape and size as the service's (21 float32 channels named as the generator's × 20 samples,
 * JSON, encoded once and the same bytes sent to every client) every 10 ms, each stamped with the
 * time it is sent as its last sample's time. What its clients measure is the transport alone (serialising,
 * the socket, the client's parse): the floor under any frame a service delivers this way.
 * Run as a child process; prints `bare ws listening on PORT`.
 */
import { Buffer } from 'node:buffer';
import process from 'node:process';
import { setTimeout } from 'node:timers';
import { performance } from 'node:perf_hooks';
import { WebSocketServer } from 'ws';

const CHANNELS = Array.from({ length: 21 }, (_, c) => `ch${c + 1}`);
const ROWS = 20;
const RATE = 2000;
const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
server.on('listening', () => console.log(`bare ws listening on ${server.address().port}`));
const data = Array.from({ length: ROWS }, (_, r) =>
  CHANNELS.map((_, c) => Math.fround(20 * Math.sin((r * CHANNELS.length + c) / 7))),
);
let seq = 0;
const start = performance.now();
const tick = () => {
  seq++;
  // Wall-clock time in ms with sub-millisecond resolution, as the service's frame timestamps are.
  const now = performance.timeOrigin + performance.now();
  const text = JSON.stringify({
    seq,
    timestamp: now - ((ROWS - 1) * 1000) / RATE,
    sampleRate: RATE,
    channels: CHANNELS,
    data,
  });
  const bytes = Buffer.from(text);
  for (const client of server.clients) client.send(bytes, { binary: false });
  const next = start + seq * 10;
  setTimeout(tick, Math.max(0, next - performance.now()));
};
setTimeout(tick, 10);
process.on('SIGTERM', () => process.exit(0));

/**
 * The load the API figures are measured beside: 10 streams of generator 21 ch × 2 kHz → filter
 * 1–40 Hz + notch → websocket (+ a logger), each websocket read by a client.
 */
import WebSocket from 'ws';
import { startStream } from './service.js';

function streamDocument() {
  return {
    nodes: [
      {
        id: 'gen',
        executable: 'signal-generator',
        config: { sampleRate: 2000, amplitudes: [20], frequencies: [10], channels: 21 },
      },
      { id: 'filter', executable: 'filter', config: { highpass: 1, lowpass: 40, notch: 50, order: 4 } },
      { id: 'ws', executable: 'websocket', config: { port: 0 } },
      { id: 'log', executable: 'logger' },
    ],
    pipes: [
      { id: 'p1', source: 'gen', destination: 'filter' },
      { id: 'p2', source: 'filter', destination: 'ws' },
      { id: 'p3', source: 'filter', destination: 'log' },
    ],
  };
}

/** Starts the 10 streams and their readers on `service`; resolves with `{ ids, close() }`. */
export async function tenStreams(service) {
  const ids = [];
  const clients = [];
  for (let i = 0; i < 10; i++) {
    const { id, status } = await startStream(service, streamDocument());
    ids.push(id);
    const port = status.nodes.find((n) => n.id === 'ws')?.port;
    const client = new WebSocket(`ws://127.0.0.1:${port}/`);
    client.on('message', () => undefined);
    client.on('error', () => undefined);
    clients.push(client);
  }
  return {
    ids,
    close() {
      for (const client of clients) client.terminate();
    },
  };
}

/**
 * Child process of the websocket fan-out test, run in a network namespace of its own whose TCP
 * buffers are small (so a client that stops reading fills them in a moment, as a slow phone on
 * Wi-Fi would over minutes). Runs the real service there, one stream eeg-source → websocket, 200
 * clients that read every frame and one that never reads; waits until the node skips frames for
 * the stalled client and the others have each received 50 frames more; prints what each client
 * got and the node's status as JSON, then stops the service.
 * usage (compiled by test/support/test-scripts.ts): node --enable-source-maps websocket-fanout-child.mjs DATA_DIR
 */
import { WebSocket } from 'ws';
import { FrameClient } from '../runtime/helpers.js';
import { json, startService } from '../support/service.js';
import { eventually } from '../support/wait.js';

const FAST = 200;
const [dataDir] = process.argv.slice(2) as [string];
const service = await startService({ dataDir });
const id = 'dddddddd-0000-4000-8000-000000000001';
const post = (path: string, body: unknown) =>
  json(`${service.url}/stream/streams${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
await post('', {
  id,
  nodes: [
    // The device's EEG joined into frames of 100 ms: ten a second to each of 200 readers (2,000
    // messages a second, which a busy machine still reads in time), 1.9 kB each.
    { id: 'gen', executable: 'eeg-source', config: { frameMs: 100 } },
    // 3 s of frames per client: a reader the machine starves of CPU for a while is not taken for a
    // stalled client; the one that never reads fills it and its small TCP buffers within seconds.
    { id: 'ws', executable: 'websocket', config: { port: 0, format: 'binary', clientBufferBytes: 65536 } },
  ],
  pipes: [{ id: 'p', source: 'gen', destination: 'ws' }],
});
await post(`/${id}/signal`, { signal: 'start' });
const wsNode = async () => {
  const { body } = await json(`${service.url}/stream/streams/${id}/status`);
  return body.status.nodes.find((n: { id: string }) => n.id === 'ws') as {
    port: number;
    clients: number;
    slowClients: number;
    clientBufferBytes: number;
    metrics: { framesDropped: number; itemsProcessed: number };
  };
};
const port = (await eventually(async () => ((await wsNode()).port > 0 ? wsNode() : undefined))).port;

/** A client that reads every frame: the seq of each, from the binary header (offset 16). */
function reader(): Promise<{ socket: WebSocket; seqs: number[] }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/`);
    const seqs: number[] = [];
    socket.on('message', (data: Buffer) => seqs.push(data.readDoubleLE(16)));
    socket.once('open', () => {
      resolve({ socket, seqs });
    });
    socket.once('error', reject);
  });
}
// The client that never reads comes first: its buffers fill while the readers connect, rather than
// after (about 2 s of the run).
const stalled = await FrameClient.connect(port);
stalled.stall();
const fast: { socket: WebSocket; seqs: number[] }[] = [];
for (let i = 0; i < FAST; i += 20) fast.push(...(await Promise.all(Array.from({ length: 20 }, reader))));

const slow = await eventually(
  async () => {
    const node = await wsNode();
    return node.slowClients > 0 && node.metrics.framesDropped > 0 ? node : undefined;
  },
  30_000,
  'the node skipping frames for the stalled client',
);
const counts = fast.map((c) => c.seqs.length);
await eventually(
  async () => (fast.every((c, i) => c.seqs.length >= (counts[i] ?? 0) + 50) ? true : undefined),
  30_000,
  '50 more frames for every reading client',
);
const after = await wsNode();
for (const c of fast) c.socket.terminate();
stalled.close();
const exit = await service.stop('SIGTERM');
process.stdout.write(
  JSON.stringify({
    slow,
    after,
    fast: fast.map((c) => c.seqs),
    stalledFrames: stalled.frames.length,
    exit,
  }),
  // Written to a pipe asynchronously: exit once all of it is out.
  () => process.exit(0),
);

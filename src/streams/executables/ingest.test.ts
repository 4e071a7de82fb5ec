/**
 * The ingest node names the channels as its config does: a sender's `FP1`, `CZ` (an older
 * headsetd, a script) went on into the stream as sent, so an ingest quick stream's frames did not
 * carry the names its answer gave (`Fp1`, `Cz`: docs/api.md §Channel names).
 */
import { expect, test } from 'vitest';
import type { Frame } from '../../core/frame.js';
import type { NodeContext } from '../../core/node.js';
import { createIngest } from './ingest.js';

function run(config: Record<string, unknown>) {
  const frames: Frame[] = [];
  let feed: ((frame: Frame) => void) | undefined;
  const context: NodeContext = {
    streamId: 's',
    nodeId: 'in',
    config,
    dataDir: '/tmp',
    emit: (_port, frame) => frames.push(frame),
    log: () => undefined,
    fail: (error) => {
      throw error;
    },
    setInfo: () => undefined,
    countDropped: () => undefined,
    trackProcessGroup: () => undefined,
    untrackProcessGroup: () => undefined,
    mainThread: {
      send: () => undefined,
      receive: (onFrame) => {
        feed = onFrame;
        return () => undefined;
      },
    },
  };
  return { node: createIngest(context), frames, feed: (frame: Frame) => feed?.(frame) };
}

const frame = (channels: string[]): Frame => ({
  seq: 0,
  timestamp: 1,
  sampleRate: 250,
  channels,
  data: new Float32Array(channels.length),
});

test('frames sent as FP1, CZ go on as the configured Fp1, Cz (they went on as sent)', async () => {
  const { node, frames, feed } = run({ channels: ['Fp1', 'Cz'], sampleRate: 250 });
  await node.start();
  feed(frame(['FP1', 'CZ']));
  feed(frame(['Fp1', 'Cz']));
  expect(frames.map((f) => f.channels)).toEqual([
    ['Fp1', 'Cz'],
    ['Fp1', 'Cz'],
  ]);
});

test('without configured channels the frames keep their names', async () => {
  const { node, frames, feed } = run({});
  await node.start();
  feed(frame(['ch1', 'CZ']));
  expect(frames[0]?.channels).toEqual(['ch1', 'CZ']);
});

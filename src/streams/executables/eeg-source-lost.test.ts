/**
 * Regression: samples a live device lost were only in events and recording annotations; no metric
 * kept them. The eeg-source node sums each frame's `lostSamples` in its metric `lostSamples`
 * (shown from the start at 0), at the device's rate, also while paused and when it resamples.
 */
import { expect, test } from 'vitest';
import type { Frame } from '../../core/frame.js';
import type { DeviceFrameSource } from '../../core/node.js';
import { recordingContext } from '../../../test/sdk/fake-node-context.js';
import { createEegSource } from './eeg-source.js';

function rig(config: Record<string, unknown> = {}) {
  const rc = recordingContext(config);
  const metrics: Record<string, number> = {};
  let deliver: ((frame: Frame) => void) | undefined;
  const device: DeviceFrameSource = {
    subscribe: (_request, onFrame) => {
      deliver = onFrame;
      return Promise.resolve(() => undefined);
    },
  };
  const context = {
    ...rc.context,
    device,
    countMetric: (name: string, amount: number) => {
      metrics[name] = (metrics[name] ?? 0) + amount;
    },
  };
  const node = createEegSource(context);
  const send = (seq: number, extra: Partial<Frame> = {}): void =>
    deliver?.({
      seq,
      timestamp: seq * 12,
      sampleRate: 250,
      channels: ['FP1'],
      data: new Float32Array(3).fill(seq),
      ...extra,
    });
  return { rc, metrics, node, send };
}

test('eeg-source counts the samples the device lost in its metric lostSamples, paused or not', async () => {
  const { metrics, node, send } = rig();
  await node.start();
  expect(metrics).toEqual({ lostSamples: 0 });
  send(0);
  send(1, { discontinuity: true, lostSamples: 7 });
  node.pause?.();
  send(2, { discontinuity: true, lostSamples: 3 });
  node.resume?.();
  send(3);
  expect(metrics.lostSamples).toBe(10);
  await node.stop();
});

test('eeg-source resampling to another rate counts the loss at the device rate', async () => {
  const { metrics, node, send } = rig({ samplingFrequency: 500 });
  await node.start();
  send(0);
  send(1, { discontinuity: true, lostSamples: 5 });
  expect(metrics.lostSamples).toBe(5);
  await node.stop();
});

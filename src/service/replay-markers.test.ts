/**
 * The replay device's markers go to the recorders and epoch nodes of the streams that read the
 * device, from the recorder's start on: a marker that comes before the recorder's first frame (the
 * device's thread runs ahead of a busy stream worker) is annotated too, placed when its file opens.
 */
import pino from 'pino';
import { expect, test } from 'vitest';
import type { DeviceEvent } from '../device/events.js';
import type { Headset } from '../device/headset.js';
import { ListenerSet } from '../core/listener-set.js';
import type { StreamManager } from '../streams/manager.js';
import { forwardMarkersToRecorders } from './replay-markers.js';

test('a marker reaches a running recorder that has not opened its file yet, and an epoch node; not a logger', () => {
  const events = new ListenerSet<DeviceEvent>();
  const device = {
    onEvent: (listener: (event: DeviceEvent) => void) => events.add(listener),
  } as unknown as Headset;
  const entry = {
    definition: {
      id: 's1',
      nodes: [
        { id: 'eeg', executable: 'eeg-source' },
        { id: 'rec', executable: 'recorder' },
        { id: 'ep', executable: 'epoch' },
        { id: 'log', executable: 'logger' },
      ],
      pipes: [],
    },
  };
  const signals: [string, string, string, Record<string, unknown>][] = [];
  const manager = {
    list: () => [entry],
    isLive: () => true,
    // The recorder runs but has had no frame: no `info.recording` yet.
    runtimeStatus: () => ({
      nodes: {
        eeg: { state: 'running' },
        rec: { state: 'running' },
        ep: { state: 'running' },
        log: { state: 'running' },
      },
      pipes: {},
    }),
    signalNode: (streamId: string, nodeId: string, signal: string, payload: Record<string, unknown>) => {
      signals.push([streamId, nodeId, signal, payload]);
      return Promise.resolve();
    },
  } as unknown as StreamManager;
  forwardMarkersToRecorders(device, manager, pino({ level: 'silent' }));
  events.emit({
    type: 'marker',
    timestamp: 1_700_000_000_500,
    data: { text: 'eyes closed', onset: 0.5, file: 'marked.edf' },
  });
  expect(signals).toEqual([
    ['s1', 'rec', 'annotate', { text: 'eyes closed', onset: 1_700_000_000_500 }],
    ['s1', 'ep', 'annotate', { text: 'eyes closed', onset: 1_700_000_000_500 }],
  ]);
});

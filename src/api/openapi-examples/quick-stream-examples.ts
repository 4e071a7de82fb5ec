/**
 * The OpenAPI examples of the quick EEG streams (`/stream/start`, `/stream/{streamId}/...`):
 * answers the service gave (see ../openapi-examples.ts).
 */
import type { OperationExamples } from './operation-examples.js';

export const QUICK_STREAM_EXAMPLES: Readonly<Record<string, OperationExamples>> = {
  'GET /stream/{streamId}': {
    message: {
      seq: 0,
      timestamp: 1795705318000,
      sampleRate: 250,
      channels: ['O1', 'O2'],
      data: [
        [12.5, -3.25],
        [11.75, -2.5],
      ],
    },
  },
  'GET /stream/{streamId}/ingest': {
    message: {
      seq: 0,
      timestamp: 1795705318000,
      sampleRate: 250,
      channels: ['O1', 'O2'],
      data: [
        [12.5, -3.25],
        [11.75, -2.5],
      ],
    },
  },
  'POST /stream/start': {
    request: {
      source: 'eeg',
      sampleRate: 250,
      channels: ['O1', 'O2'],
    },
    response: {
      success: true,
      streamId: 'c271b659-5ed7-495f-b330-3108d39f7749',
      config: {
        source: 'eeg',
        sampleRate: 250,
        channels: ['O1', 'O2'],
        filters: {},
        bufferSize: 2500,
        metadata: {},
      },
      status: 'running',
    },
    responses: {
      '409': {
        success: false,
        error: {
          code: 'channels_unavailable',
          message:
            'The device does not acquire FP1, CZ: its EEG configuration acquires PZ, O1, O2, P3. Enable them first (PUT /system/sensors/eeg?channels=… or POST /system/peripheral/electrodes/config with them in enabled; a replayed recording has only its own channels), or name only acquired channels.',
          details: { channels: ['FP1', 'CZ'], acquired: ['PZ', 'O1', 'O2', 'P3'], path: '/channels/0' },
        },
      },
    },
  },
  'GET /stream/{streamId}/data': {
    response: {
      success: true,
      timestamp: 1795705330640,
      channels: ['O1', 'O2'],
      data: [
        [12.766, -4.031],
        [11.548, -3.646],
      ],
    },
  },
  'GET /stream/{streamId}/status': {
    response: {
      success: true,
      streamId: 'c271b659-5ed7-495f-b330-3108d39f7749',
      status: 'running',
      degraded: false,
      error: null,
      startTime: '2026-11-26T15:02:09.643Z',
      duration: 1.026,
      samples: 249,
      sampleRate: 250,
      channels: ['O1', 'O2'],
      dataRate: {
        samplesPerSecond: 242.7,
        bytesPerSecond: 1942,
      },
      clients: 0,
      recording: false,
      recordingId: null,
      bufferSize: 2500,
      buffered: 249,
      framesDropped: 0,
      pipe: null,
      ingest: null,
    },
  },
  'POST /stream/{streamId}/pipe': {
    request: {
      target: {
        host: '127.0.0.1',
        port: 42070,
        streamId: 'c0ffee00-0000-4000-8000-000000000001',
      },
    },
    response: {
      success: true,
      streamId: 'c271b659-5ed7-495f-b330-3108d39f7749',
      pipe: {
        target: {
          host: '127.0.0.1',
          port: 42070,
          streamId: 'c0ffee00-0000-4000-8000-000000000001',
        },
        url: 'ws://127.0.0.1:42070/stream/c0ffee00-0000-4000-8000-000000000001/ingest',
        state: 'connecting',
        framesSent: 0,
        framesDropped: 0,
        queued: 0,
        reconnects: 0,
        lastError: null,
      },
    },
  },
  'DELETE /stream/{streamId}/pipe': {
    response: {
      success: true,
      streamId: 'c271b659-5ed7-495f-b330-3108d39f7749',
      pipe: {
        target: {
          host: '127.0.0.1',
          port: 42070,
          streamId: 'c0ffee00-0000-4000-8000-000000000001',
        },
        url: 'ws://127.0.0.1:42070/stream/c0ffee00-0000-4000-8000-000000000001/ingest',
        state: 'closed',
        framesSent: 0,
        framesDropped: 0,
        queued: 0,
        reconnects: 0,
        lastError: null,
      },
    },
  },
  'POST /stream/{streamId}/stop': {
    response: {
      success: true,
      streamId: 'c271b659-5ed7-495f-b330-3108d39f7749',
      status: 'stopped',
      duration: 1.062,
      samples: 261,
    },
  },
};

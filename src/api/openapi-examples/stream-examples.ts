/**
 * The OpenAPI examples of the stream paths (`/stream/streams/...`): answers the service gave (see
 * ../openapi-examples.ts).
 */
import type { OperationExamples } from './operation-examples.js';

export const STREAM_EXAMPLES: Readonly<Record<string, OperationExamples>> = {
  'POST /stream/streams': {
    request: {
      id: '3f9c1e4a-2b7d-4c8e-9a1f-5d6e7f8a9b0c',
      meta: {
        name: 'Sine to WebSocket',
        tags: ['demo'],
      },
      nodes: [
        {
          id: 'gen',
          type: 'EXECUTABLE_PRODUCER',
          executable: 'signal-generator',
          config: {
            sampleRate: 250,
            amplitudes: [1, 0.5],
            frequencies: [10, 20],
            channels: 2,
          },
        },
        {
          id: 'ws',
          type: 'EXECUTABLE_CONSUMER',
          executable: 'websocket',
          config: {
            port: 0,
          },
        },
      ],
      pipes: [
        {
          id: 'p1',
          source: 'gen',
          destination: 'ws',
        },
      ],
    },
    response: {
      id: '3f9c1e4a-2b7d-4c8e-9a1f-5d6e7f8a9b0c',
      success: true,
    },
  },
  'POST /stream/streams/validate': {
    request: {
      id: '3f9c1e4a-2b7d-4c8e-9a1f-5d6e7f8a9b0c',
      meta: { name: 'Sine to WebSocket' },
      nodes: [
        {
          id: 'gen',
          executable: 'signal-generator',
          config: { sampleRate: 250, amplitudes: [1], frequencies: [10] },
        },
        { id: 'ws', executable: 'websocket', config: { port: 0 } },
      ],
      pipes: [{ id: 'p1', source: 'gen', destination: 'ws' }],
    },
    response: {
      id: '3f9c1e4a-2b7d-4c8e-9a1f-5d6e7f8a9b0c',
      success: true,
    },
  },
  'GET /stream/streams': {
    response: {
      success: true,
      streams: [
        {
          id: '3f9c1e4a-2b7d-4c8e-9a1f-5d6e7f8a9b0c',
          meta: {
            name: 'Sine to WebSocket',
            tags: ['demo'],
            created: '2026-11-26T15:01:57.721Z',
            updated: '2026-11-26T15:01:57.721Z',
          },
          state: 'created',
        },
      ],
    },
  },
  'POST /stream/streams/yaml': {
    request: {
      id: '3f9c1e4a-2b7d-4c8e-9a1f-5d6e7f8a9b0d',
      meta: {
        name: 'Sine to WebSocket',
        tags: ['demo'],
      },
      nodes: [
        {
          id: 'gen',
          type: 'EXECUTABLE_PRODUCER',
          executable: 'signal-generator',
          config: {
            sampleRate: 250,
            amplitudes: [1, 0.5],
            frequencies: [10, 20],
            channels: 2,
          },
        },
        {
          id: 'ws',
          type: 'EXECUTABLE_CONSUMER',
          executable: 'websocket',
          config: {
            port: 0,
          },
        },
      ],
      pipes: [
        {
          id: 'p1',
          source: 'gen',
          destination: 'ws',
        },
      ],
    },
    response: {
      id: '3f9c1e4a-2b7d-4c8e-9a1f-5d6e7f8a9b0d',
      success: true,
    },
  },
  'GET /stream/streams/{id}': {
    response: {
      success: true,
      stream: {
        id: '3f9c1e4a-2b7d-4c8e-9a1f-5d6e7f8a9b0c',
        meta: {
          name: 'Sine to WebSocket',
          tags: ['demo'],
          created: '2026-11-26T15:01:57.721Z',
          updated: '2026-11-26T15:01:57.721Z',
        },
        nodes: [
          {
            id: 'gen',
            type: 'EXECUTABLE_PRODUCER',
            executable: 'signal-generator',
            config: {
              sampleRate: 250,
              amplitudes: [1, 0.5],
              frequencies: [10, 20],
              channels: 2,
            },
            status: 'CREATED',
          },
          {
            id: 'ws',
            type: 'EXECUTABLE_CONSUMER',
            executable: 'websocket',
            config: {
              port: 0,
            },
            status: 'CREATED',
          },
        ],
        pipes: [
          {
            id: 'p1',
            source: 'gen',
            destination: 'ws',
          },
        ],
        status: 'CREATED',
      },
    },
  },
  'PUT /stream/streams/{id}': {
    request: {
      meta: {
        name: 'Sine to WebSocket',
        tags: ['demo'],
      },
      nodes: [
        {
          id: 'gen',
          type: 'EXECUTABLE_PRODUCER',
          executable: 'signal-generator',
          config: {
            sampleRate: 250,
            amplitudes: [1, 0.5],
            frequencies: [10, 20],
            channels: 2,
          },
        },
        {
          id: 'ws',
          type: 'EXECUTABLE_CONSUMER',
          executable: 'websocket',
          config: {
            port: 0,
          },
        },
      ],
      pipes: [
        {
          id: 'p1',
          source: 'gen',
          destination: 'ws',
        },
      ],
    },
    response: {
      id: '3f9c1e4a-2b7d-4c8e-9a1f-5d6e7f8a9b0c',
      success: true,
    },
  },
  'GET /stream/streams/{id}/yaml': {
    response:
      'id: 3f9c1e4a-2b7d-4c8e-9a1f-5d6e7f8a9b0c\nmeta:\n  name: Sine to WebSocket\n  tags:\n    - demo\n  created: 2026-11-26T15:01:57.721Z\n  updated: 2026-11-26T15:01:57.827Z\nnodes:\n  - id: gen\n    type: EXECUTABLE_PRODUCER\n    executable: signal-generator\n    config:\n      sampleRate: 250\n      amplitudes:\n  ',
  },
  'POST /stream/streams/{id}/signal': {
    request: {
      signal: 'start',
    },
    response: {
      id: '3f9c1e4a-2b7d-4c8e-9a1f-5d6e7f8a9b0c',
      success: true,
    },
  },
  'GET /stream/streams/{id}/status': {
    response: {
      success: true,
      status: {
        state: 'running',
        degraded: false,
        error: null,
        nodes: [
          {
            id: 'gen',
            state: 'running',
            metrics: {
              itemsProcessed: 41,
              samplesProcessed: 123,
              errorCount: 0,
              framesDropped: 0,
              queueDepth: 0,
              restarts: 0,
              lastError: null,
            },
          },
          {
            port: 40519,
            host: '127.0.0.1',
            format: 'json',
            clients: 0,
            id: 'ws',
            state: 'running',
            metrics: {
              itemsProcessed: 41,
              samplesProcessed: 123,
              errorCount: 0,
              framesDropped: 0,
              queueDepth: 0,
              restarts: 0,
              lastError: null,
              latency: {
                p1: {
                  p50: 0.078,
                  p99: 0.203,
                },
              },
            },
          },
        ],
        pipes: {
          p1: {
            framesSent: 41,
            framesDropped: 0,
            queueDepth: 0,
          },
        },
      },
    },
  },
  'POST /stream/streams/{id}/nodes': {
    request: [
      {
        id: 'bp',
        executable: 'filter',
        config: {
          highpass: 1,
          lowpass: 40,
          order: 4,
        },
      },
      {
        id: 'rec',
        executable: 'recorder',
        config: {
          filename: 'session1.bdf',
        },
      },
    ],
    response: {
      id: '3f9c1e4a-2b7d-4c8e-9a1f-5d6e7f8a9b0c',
      success: true,
      nodes: ['bp', 'rec'],
    },
  },
  'POST /stream/streams/{id}/pipes': {
    request: [
      {
        id: 'p2',
        source: 'gen',
        destination: 'bp',
      },
      {
        id: 'p3',
        source: 'bp',
        destination: 'rec',
      },
    ],
    response: {
      id: '3f9c1e4a-2b7d-4c8e-9a1f-5d6e7f8a9b0c',
      pipes: ['p2', 'p3'],
      success: true,
    },
  },
  'POST /stream/streams/{id}/nodes/yaml': {
    request: [
      {
        id: 'log',
        executable: 'logger',
      },
    ],
    response: {
      id: '3f9c1e4a-2b7d-4c8e-9a1f-5d6e7f8a9b0c',
      success: true,
      nodes: ['log'],
    },
  },
  'POST /stream/streams/{id}/pipes/yaml': {
    request: [
      {
        id: 'p4',
        source: 'gen',
        destination: 'log',
      },
    ],
    response: {
      id: '3f9c1e4a-2b7d-4c8e-9a1f-5d6e7f8a9b0c',
      pipes: ['p4'],
      success: true,
    },
  },
  'POST /stream/streams/{id}/nodes/{nodeId}/signal': {
    request: {
      signal: 'marker',
      text: 'eyes closed',
    },
    response: {
      id: 'rec',
      streamId: '3f9c1e4a-2b7d-4c8e-9a1f-5d6e7f8a9b0c',
      signal: 'marker',
      success: true,
    },
  },
  'GET /stream/streams/{id}/nodes/{nodeId}/logs': {
    response: {
      success: true,
      logs: [
        {
          timestamp: 1795705318540,
          stream: 'event',
          line: 'in: seq=54 samples=3 channels=2 sampleRate=250',
        },
        {
          timestamp: 1795705318551,
          stream: 'event',
          line: 'in: seq=55 samples=3 channels=2 sampleRate=250',
        },
      ],
    },
  },
  'DELETE /stream/streams/{id}/pipes': {
    request: ['p4'],
    response: {
      id: '3f9c1e4a-2b7d-4c8e-9a1f-5d6e7f8a9b0c',
      pipes: ['p4'],
      success: true,
    },
  },
  'DELETE /stream/streams/{id}/nodes': {
    request: ['log'],
    response: {
      id: '3f9c1e4a-2b7d-4c8e-9a1f-5d6e7f8a9b0c',
      success: true,
      nodes: ['log'],
      pipes: [],
    },
  },
  'DELETE /stream/streams/{id}': {
    response: {
      success: true,
    },
  },
};

/**
 * One example request and answer per operation of the OpenAPI document, added to it as the
 * document is generated (openapi.ts). They are answers the service gave (the simulated headset,
 * seated), shortened where a list was long; a test validates every example against the schema it
 * illustrates, so an example cannot outlive a change of its schema. Keys are `METHOD /path` with
 * OpenAPI's `{param}`; the `/streams` aliases share the examples of `/stream/streams`. The
 * WebSocket paths show one message in their 101 answer. `responses` holds the examples of other
 * success codes.
 */

export interface OperationExamples {
  readonly request?: unknown;
  readonly response?: unknown;
  /** Several answers of the first success code, each with what it illustrates (instead of `response`). */
  readonly namedResponses?: Readonly<Record<string, { summary: string; value: unknown }>>;
  readonly responses?: Readonly<Record<string, unknown>>;
  /** A WebSocket's: one message it sends (or, for an ingest socket, takes), shown in its 101 answer. */
  readonly message?: unknown;
}

export const OPERATION_EXAMPLES: Readonly<Record<string, OperationExamples>> = {
  'GET /system/sensors/eeg/stream': {
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
  'GET /system/events': {
    message: { type: 'impedance', timestamp: 1795705321546, data: { O1: 13.87, O2: 11.02, CZ: 10.09 } },
  },
  'GET /electrodes/impedance/live': {
    message: { timestamp: 1795705321546, values: { O1: 13.87, O2: 11.02, Cz: 10.09 } },
  },
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
  'GET /system/recordings': {
    response: {
      success: true,
      recordings: [
        {
          name: 'session1.bdf',
          format: 'bdf',
          bytes: 5050,
          created: '2026-11-26T15:01:58.458Z',
          durationSeconds: 1.62,
          channels: ['ch1', 'ch2'],
          sampleRate: 250,
          complete: true,
        },
      ],
    },
  },
  'GET /system/recordings/{name}': {
    response: 'timestamp,Fp1,Cz\n1795705318000.000,12.5,-3.25\n1795705318004.000,11.75,-2.5\n',
  },
  'DELETE /stream/streams/{id}': {
    response: {
      success: true,
    },
  },
  'PUT /system/sensors/eeg': {
    request: {
      gain: 24,
      samplingFrequency: 250,
      channels: ['O1', 'O2', 'CZ'],
    },
    response: {
      success: true,
      config: {
        channels: ['O1', 'O2', 'CZ'],
        gain: 24,
        samplingFrequency: 250,
      },
    },
  },
  'POST /system/sensors/eeg/stream': {
    response: {
      success: true,
      streaming: true,
      config: {
        channels: ['O1', 'O2', 'CZ'],
        gain: 24,
        samplingFrequency: 250,
      },
    },
  },
  'DELETE /system/sensors/eeg/stream': {
    response: {
      success: true,
      streaming: false,
      samples: 75,
    },
  },
  'DELETE /system/sensors/eeg': {
    response: {
      success: true,
      config: {
        channels: [
          'PZ',
          'O1',
          'O2',
          'P3',
          'P4',
          'T5',
          'T6',
          'C3',
          'C4',
          'T3',
          'T4',
          'CZ',
          'F7',
          'F8',
          'F3',
          'F4',
          'FP1',
          'FP2',
          'FZ',
        ],
        gain: 24,
        samplingFrequency: 250,
      },
    },
  },
  'GET /system/sensors/impedance': {
    response: {
      O1: 15006,
      O2: 12059,
      CZ: 10592,
    },
  },
  'GET /system/sensors/impedance/all': {
    response: {
      PZ: 14330,
      O1: 14759,
      O2: 11711,
      P3: 12310,
      P4: 13014,
      T5: 15632,
      T6: 12813,
      C3: 13548,
      C4: 10981,
      T3: 11699,
      T4: 14221,
      CMS: 11195,
      DRL: 11990,
      CZ: 10475,
      F7: 15917,
      F8: 13914,
      F3: 11067,
      F4: 13949,
      FP1: 15000,
      FP2: 15256,
      FZ: 14015,
    },
  },
  'GET /system/motors/position': {
    response: {
      O1: 73.5,
      O2: 86.4,
    },
  },
  'POST /system/motors/position': {
    request: {
      configuration: [{ electrode: 'O1', movement: 'RETRACT', displacement: 5 }],
    },
    // What the numbers are depends on the query (docs/system-paths.md §Motors).
    namedResponses: {
      now: { summary: 'No flag: state codes right after the command (1 moving)', value: { O1: 1 } },
      waitUntilComplete: {
        summary: 'waitUntilComplete=true: final state codes once stopped (0 idle, 3 stalled on the scalp)',
        value: { O1: 0 },
      },
      getFinalPosition: {
        summary: 'getFinalPosition=true: final positions in steps once stopped',
        value: { O1: 68.5 },
      },
    },
  },
  'GET /system/motors/state': {
    response: {
      O1: 0,
      O2: 0,
    },
  },
  'POST /system/motors/position/reset': {
    request: {
      position: 'MAX',
    },
    response: {
      PZ: 3,
      O1: 3,
      O2: 3,
      P3: 3,
      P4: 3,
      T5: 3,
      T6: 3,
      C3: 3,
      C4: 3,
      T3: 3,
      T4: 3,
      CMS: 3,
      DRL: 3,
      CZ: 3,
      F7: 3,
      F8: 3,
      F3: 3,
      F4: 3,
      FP1: 3,
      FP2: 3,
      FZ: 3,
    },
  },
  'GET /system/led/state': {
    response: {
      success: true,
      index: 'USER',
      color: '#000000',
      active: false,
      state: 'OFF',
      blinksPerSecond: 0,
    },
  },
  'PUT /system/led/state': {
    request: {
      color: '#00FF00',
      blinksPerSecond: 2,
      index: 'USER',
    },
    response: {
      success: true,
      state: {
        color: '#00FF00',
        blinksPerSecond: 2,
        index: 'USER',
      },
    },
  },
  'GET /system/sensors/imu/primary': {
    response: {
      pos_x: -1.02,
      pos_y: -1.221,
      pos_z: -0.896,
      roll: 0.183,
      pitch: 0.256,
      yaw: 1.232,
    },
  },
  'GET /system/sensors/imu': {
    response: {
      pos_x: -0.995,
      pos_y: -1.289,
      pos_z: -0.928,
      roll: 0.208,
      pitch: 0.285,
      yaw: 1.247,
    },
  },
  'GET /system/healthz': {
    response: {
      status: 'healthy',
      problems: [],
      httpPort: 42069,
      grpcPort: 0,
      host: 'headset',
      battery: {
        hasBattery: true,
        cycleCount: 18,
        isCharging: false,
        designedCapacity: 7400,
        maxCapacity: 7179,
        currentCapacity: 5742,
        voltage: 4.03,
        capacityUnit: 'mWh',
        percent: 80,
        timeRemaining: 984,
        temperature: 25.4,
        acConnected: false,
        type: 'Li-ion',
        model: 'HS21-BAT-2000',
        manufacturer: 'headsetd (simulated)',
        serial: 'SIMBAT-9CC8B0',
      },
      cpu: {
        load: 100,
        temperature: 40.1,
        totalClockSpeed: 2.6,
        currentClockSpeed: 2.6,
      },
      ram: {
        total: 25276518400,
        available: 18156060672,
        free: 17623556096,
      },
      storage: {
        total: 270553174016,
        free: 84242653184,
      },
      service: {
        rss: 106598400,
        heapUsed: 30570088,
        openFiles: 26,
        childProcesses: 0,
        eventLoopDelayMs: { p50: 0.4, p99: 1.9, max: 3.2 },
      },
    },
  },
  'GET /system/clock': {
    response: {
      success: true,
      unixMs: 1763712000123.456,
      monotonicS: 10842.123456789,
      offsetMs: 1763701158000.0,
    },
  },
  'GET /system/hostname': {
    response: {
      success: true,
      hostname: 'headset',
    },
  },
  'PATCH /system/hostname': {
    request: {
      hostname: 'headset-lab-1',
    },
    response: {
      success: true,
      hostname: 'headset-lab-1',
    },
  },
  'GET /system/config': {
    response: {
      success: true,
      config: {
        lowBatteryThreshold: 15,
        eeg: {
          channels: [
            'PZ',
            'O1',
            'O2',
            'P3',
            'P4',
            'T5',
            'T6',
            'C3',
            'C4',
            'T3',
            'T4',
            'CZ',
            'F7',
            'F8',
            'F3',
            'F4',
            'FP1',
            'FP2',
            'FZ',
          ],
          gain: 24,
          samplingFrequency: 250,
        },
        impedance: {
          thresholds: {
            excellent: 5,
            good: 10,
            acceptable: 20,
            poor: 50,
          },
          updateInterval: 1000,
        },
        ledVisualization: {
          enabled: false,
          colorScheme: 'default',
          updateInterval: 1000,
        },
      },
    },
  },
  'PATCH /system/config': {
    request: {
      eeg: {
        gain: 12,
      },
    },
    response: {
      success: true,
      config: {
        lowBatteryThreshold: 15,
        eeg: {
          channels: [
            'PZ',
            'O1',
            'O2',
            'P3',
            'P4',
            'T5',
            'T6',
            'C3',
            'C4',
            'T3',
            'T4',
            'CZ',
            'F7',
            'F8',
            'F3',
            'F4',
            'FP1',
            'FP2',
            'FZ',
          ],
          gain: 12,
          samplingFrequency: 250,
        },
        impedance: {
          thresholds: {
            excellent: 5,
            good: 10,
            acceptable: 20,
            poor: 50,
          },
          updateInterval: 1000,
        },
        ledVisualization: {
          enabled: false,
          colorScheme: 'default',
          updateInterval: 1000,
        },
      },
    },
  },
  'GET /system/status': {
    response: {
      success: true,
      status: {
        state: 'idle',
        eeg: {
          streaming: false,
          owners: [],
          samples: 75,
          config: {
            channels: [
              'PZ',
              'O1',
              'O2',
              'P3',
              'P4',
              'T5',
              'T6',
              'C3',
              'C4',
              'T3',
              'T4',
              'CZ',
              'F7',
              'F8',
              'F3',
              'F4',
              'FP1',
              'FP2',
              'FZ',
            ],
            gain: 12,
            samplingFrequency: 250,
          },
        },
        impedance: {
          measuring: false,
        },
        motors: {
          moving: [],
          stalled: [
            'PZ',
            'O1',
            'O2',
            'P3',
            'P4',
            'T5',
            'T6',
            'C3',
            'C4',
            'T3',
            'T4',
            'CMS',
            'DRL',
            'CZ',
            'F7',
            'F8',
            'F3',
            'F4',
            'FP1',
            'FP2',
            'FZ',
          ],
        },
        streams: {
          total: 1,
          running: 0,
        },
        battery: {
          percent: 80,
          isCharging: false,
        },
        uptimeSeconds: 4.1,
        version: '0.1.0',
        temperatures: {
          cpu: {
            celsius: 40.1,
            source: 'simulated',
          },
          battery: {
            celsius: 25.4,
            source: 'simulated',
          },
        },
        simulated: ['battery', 'battery.temperature', 'cpu.temperature'],
      },
    },
  },
  'GET /system/version': {
    response: {
      success: true,
      version: {
        api: '1',
        service: '0.1.0',
        hardware: 'HS-21 rev C (simulated)',
        firmware: '1.0.0-sim',
        device: 'simulated',
      },
    },
  },
  'POST /system/debug/command': {
    request: {
      packetType: 1,
      cmdResp: 1,
      peripheral: 1,
      peripheralChannels: 0,
      parameter: [0, 3],
      data: [],
    },
    response: {
      success: true,
      response: {
        txnID: 0,
        packetType: 2,
        srcDevice: 1,
        cmdResp: 0,
        peripheral: 1,
        peripheralChannels: 0,
        parameter: [0, 3],
        data: [62, 250, 12],
      },
    },
  },
  'POST /electrodes/impedance/start': {
    request: {
      channels: ['O1', 'O2', 'Cz'],
    },
    response: {
      success: true,
      status: 'running',
      sessionId: '214041d5-27f1-469f-91d8-763848550b6e',
      mode: 'single',
      channels: ['O1', 'O2', 'Cz'],
      updateInterval: 1000,
    },
  },
  'GET /electrodes/impedance': {
    response: {
      success: true,
      timestamp: 1795705321546,
      values: {
        O1: 13.87,
        O2: 11.02,
        Cz: 10.09,
      },
      status: 'completed',
      sessionId: '214041d5-27f1-469f-91d8-763848550b6e',
      mode: 'single',
    },
  },
  'POST /electrodes/impedance/stop': {
    request: {},
    response: {
      success: true,
      status: 'completed',
      sessionId: '214041d5-27f1-469f-91d8-763848550b6e',
    },
  },
  'GET /electrodes/impedance/history': {
    response: {
      success: true,
      channels: ['O1', 'Cz'],
      timeRange: '1h',
      timeline: [
        {
          timestamp: 1795705321546,
          values: {
            O1: 13.87,
            Cz: 10.09,
          },
        },
      ],
    },
  },
  'POST /electrodes/impedance/snapshot': {
    request: {
      name: 'after seating',
      notes: 'gel applied',
    },
    response: {
      success: true,
      snapshot: {
        id: '134c2edb-130c-4d72-b028-a6f19c33c423',
        name: 'after seating',
        notes: 'gel applied',
        timestamp: '2026-11-26T15:02:03.050Z',
        values: {
          Pz: 13.21,
          O1: 13.59,
          O2: 11.03,
          P3: 11.16,
          P4: 11.91,
          T5: 14.32,
          T6: 12.42,
          C3: 12.35,
          C4: 9.34,
          T3: 10.72,
          T4: 13.26,
          CMS: 9.9,
          DRL: 11.45,
          Cz: 9.76,
          F7: 14.13,
          F8: 12.99,
          F3: 9.98,
          F4: 13.49,
          Fp1: 14.23,
          Fp2: 14.18,
          Fz: 12.94,
        },
      },
    },
  },
  'GET /electrodes/impedance/snapshots': {
    response: {
      success: true,
      snapshots: [
        {
          id: '134c2edb-130c-4d72-b028-a6f19c33c423',
          name: 'after seating',
          notes: 'gel applied',
          timestamp: '2026-11-26T15:02:03.050Z',
          values: {
            Pz: 13.21,
            O1: 13.59,
            O2: 11.03,
            P3: 11.16,
            P4: 11.91,
            T5: 14.32,
            T6: 12.42,
            C3: 12.35,
            C4: 9.34,
            T3: 10.72,
            T4: 13.26,
            CMS: 9.9,
            DRL: 11.45,
            Cz: 9.76,
            F7: 14.13,
            F8: 12.99,
            F3: 9.98,
            F4: 13.49,
            Fp1: 14.23,
            Fp2: 14.18,
            Fz: 12.94,
          },
        },
      ],
    },
  },
  'GET /electrodes/impedance/map': {
    response:
      '<svg xmlns="http://www.w3.org/2000/svg" width="640" height="776" viewBox="0 0 640 776">…</svg>',
  },
  'POST /electrodes/impedance/optimize': {
    request: {
      channels: ['O1'],
      targetImpedance: 20,
      maxAttempts: 3,
    },
    response: {
      success: true,
      strategy: 'gentle',
      targetImpedance: 20,
      results: {
        O1: {
          before: 13.56,
          after: 13.56,
          attempts: 0,
          reached: true,
          position: 78.5,
          reason: 'target_reached',
        },
      },
    },
  },
  'POST /electrodes/adjust': {
    responses: {
      '202': {
        success: true,
        job: {
          id: '7111a7c7-2af7-42f6-8ef0-e86b6a281d47',
          operation: 'electrodes.adjust',
          status: 'running',
          createdAt: '2026-11-26T15:02:03.148Z',
          updatedAt: '2026-11-26T15:02:03.148Z',
          finishedAt: null,
          progress: {
            total: 1,
            completed: 0,
            electrodes: {
              O2: {
                done: false,
                position: 91.4,
                state: 3,
                impedance: null,
              },
            },
          },
          result: null,
          error: null,
        },
      },
    },
    request: {
      electrodes: ['O2'],
      action: 'increase_pressure',
    },
    response: {
      success: true,
      strategy: 'gentle',
      targetImpedance: 10,
      results: {
        O2: {
          before: 11.11,
          after: 11.11,
          attempts: 0,
          reached: false,
          position: 91.4,
          reason: 'stalled',
        },
      },
    },
  },
  'GET /system/jobs/{id}': {
    response: {
      success: true,
      job: {
        id: '7111a7c7-2af7-42f6-8ef0-e86b6a281d47',
        operation: 'electrodes.adjust',
        status: 'completed',
        createdAt: '2026-11-26T15:02:03.148Z',
        updatedAt: '2026-11-26T15:02:03.229Z',
        finishedAt: '2026-11-26T15:02:03.229Z',
        progress: {
          total: 1,
          completed: 1,
          electrodes: {
            O2: {
              done: true,
              position: 91.4,
              state: 3,
              impedance: 11.12,
              attempts: 0,
              reason: 'stalled',
            },
          },
        },
        result: {
          strategy: 'gentle',
          targetImpedance: 10,
          results: {
            O2: {
              before: 11.12,
              after: 11.12,
              attempts: 0,
              reached: false,
              position: 91.4,
              reason: 'stalled',
            },
          },
        },
        error: null,
      },
    },
  },
  'GET /system/jobs': {
    response: {
      success: true,
      jobs: [
        {
          id: '7111a7c7-2af7-42f6-8ef0-e86b6a281d47',
          operation: 'electrodes.adjust',
          status: 'completed',
          createdAt: '2026-11-26T15:02:03.148Z',
          updatedAt: '2026-11-26T15:02:03.229Z',
          finishedAt: '2026-11-26T15:02:03.229Z',
          progress: {
            total: 1,
            completed: 1,
            electrodes: {
              O2: {
                done: true,
                position: 91.4,
                state: 3,
                impedance: 11.12,
                attempts: 0,
                reason: 'stalled',
              },
            },
          },
          result: {
            strategy: 'gentle',
            targetImpedance: 10,
            results: {
              O2: {
                before: 11.12,
                after: 11.12,
                attempts: 0,
                reached: false,
                position: 91.4,
                reason: 'stalled',
              },
            },
          },
          error: null,
        },
        {
          id: '7aa5a6a8-be05-49bc-97ee-2239fce30ac6',
          operation: 'electrodes.optimize',
          status: 'completed',
          createdAt: '2026-11-26T15:02:03.062Z',
          updatedAt: '2026-11-26T15:02:03.144Z',
          finishedAt: '2026-11-26T15:02:03.144Z',
          progress: {
            total: 1,
            completed: 1,
            electrodes: {
              O1: {
                done: true,
                position: 78.5,
                state: 3,
                impedance: 13.56,
                attempts: 0,
                reason: 'target_reached',
              },
            },
          },
          result: {
            strategy: 'gentle',
            targetImpedance: 20,
            results: {
              O1: {
                before: 13.56,
                after: 13.56,
                attempts: 0,
                reached: true,
                position: 78.5,
                reason: 'target_reached',
              },
            },
          },
          error: null,
        },
      ],
    },
  },
  'DELETE /system/jobs/{id}': {
    response: {
      success: true,
      job: {
        id: '7111a7c7-2af7-42f6-8ef0-e86b6a281d47',
        operation: 'electrodes.adjust',
        status: 'completed',
        createdAt: '2026-11-26T15:02:03.148Z',
        updatedAt: '2026-11-26T15:02:03.229Z',
        finishedAt: '2026-11-26T15:02:03.229Z',
        progress: {
          total: 1,
          completed: 1,
          electrodes: {
            O2: {
              done: true,
              position: 91.4,
              state: 3,
              impedance: 11.12,
              attempts: 0,
              reason: 'stalled',
            },
          },
        },
        result: {
          strategy: 'gentle',
          targetImpedance: 10,
          results: {
            O2: {
              before: 11.12,
              after: 11.12,
              attempts: 0,
              reached: false,
              position: 91.4,
              reason: 'stalled',
            },
          },
        },
        error: null,
      },
    },
  },
  'GET /electrodes/impedance/schedule': {
    response: {
      success: true,
      schedules: [
        {
          scheduleId: '129d8501-3432-475e-9814-10cf3fbd826a',
          interval: 5,
          unit: 'm',
          duration: 60,
          action: 'check',
          thresholdIncrease: 50,
          checks: 0,
          skipped: 0,
          endsAt: '2026-11-26T16:02:27.797Z',
          baseline: null,
        },
      ],
    },
  },
  'POST /electrodes/prepare': {
    request: {
      electrodes: ['O1'],
      action: 'seat',
    },
    response: {
      success: true,
      action: 'seat',
      electrodes: {
        O1: {
          position: 78.5,
          state: 3,
          impedance: 13.98,
        },
      },
    },
  },
  'GET /electrodes/preparation-guidance': {
    response: {
      success: true,
      guidance: {
        O1: {
          impedance: 13.98,
          level: 'acceptable',
          instruction:
            'Press O1 one or two steps further (POST /electrodes/adjust, action increase_pressure), then wait 30 s for the contact to settle.',
        },
        Cz: {
          impedance: 12.5,
          level: 'acceptable',
          instruction:
            'Press Cz one or two steps further (POST /electrodes/adjust, action increase_pressure), then wait 30 s for the contact to settle.',
        },
      },
    },
  },
  'POST /electrodes/diagnose': {
    request: {
      electrode: 'O1',
      diagnosticLevel: 'basic',
    },
    response: {
      success: true,
      electrode: 'O1',
      diagnosticLevel: 'basic',
      motor: {
        position: 78.5,
        state: 3,
      },
      impedance: 13.21,
      noiseRms: null,
      lineNoise: null,
      verdict: 'ok',
      advice: 'No problem found.',
    },
  },
  'POST /motors/control': {
    request: {
      motor: 'O2',
      action: 'move',
      parameters: {
        position: 60,
      },
    },
    response: {
      success: true,
      motor: 'O2',
      action: 'move',
      position: 91.399,
      targetPosition: 60,
      state: 1,
      speed: 20,
    },
  },
  'POST /motors/apply-pressure': {
    request: {
      profile: 'medium',
      electrodes: ['O1'],
    },
    response: {
      success: true,
      profile: 'medium',
      results: {
        O1: {
          pressedSteps: 6,
          position: 78.5,
          impedance: 13.39,
          contact: true,
          state: 3,
        },
      },
    },
  },
  'POST /leds/impedance-visualization': {
    request: {
      enabled: true,
      colorScheme: 'default',
      updateInterval: 1000,
    },
    response: {
      success: true,
      enabled: true,
      colorScheme: 'default',
      updateInterval: 1000,
      thresholds: {
        excellent: 5,
        good: 10,
        acceptable: 20,
        poor: 50,
      },
      level: 'acceptable',
      color: '#FFFF00',
    },
  },
  'POST /system/peripheral/electrodes/config': {
    request: {
      samplingRate: 250,
      gain: 24,
      enabled: [0, 1, 2],
    },
    response: {
      success: true,
      config: {
        samplingRate: 250,
        gain: 24,
        enabled: [0, 1, 2],
        inputType: 'normal',
        bias: true,
      },
    },
  },
  'POST /system/peripheral/electrodes/impedance': {
    response: {
      success: true,
      electrodes: [
        {
          index: 0,
          magnitude: 12757,
          phase: 0,
        },
        {
          index: 1,
          magnitude: 14103,
          phase: 0,
        },
        {
          index: 2,
          magnitude: 4240829,
          phase: 0,
        },
      ],
    },
  },
  'POST /system/peripheral/electrodes/stream': {
    response: {
      success: true,
      streaming: true,
    },
  },
  'POST /system/peripheral/electrodes/stop': {
    response: {
      success: true,
      streaming: false,
      samples: 48,
    },
  },
  'GET /system/peripheral/leds': {
    response: {
      success: true,
      leds: [
        {
          id: 0,
          state: {
            on: true,
            color: '#00FF00',
            blinkRate: 2,
          },
        },
        {
          id: 1,
          state: {
            on: true,
            color: '#FFFF00',
            blinkRate: 0,
          },
        },
      ],
    },
  },
  'PUT /system/peripheral/leds/{id}': {
    request: {
      on: true,
      color: '#0000FF',
      blinkRate: 0,
    },
    response: {
      success: true,
      id: 0,
      state: {
        on: true,
        color: '#0000FF',
        blinkRate: 0,
      },
    },
  },
  'GET /system/peripheral/motors': {
    response: {
      success: true,
      motors: [
        {
          id: 0,
          position: 84.1,
          state: 3,
        },
        {
          id: 1,
          position: 78.5,
          state: 3,
        },
        {
          id: 2,
          position: 60,
          state: 0,
        },
      ],
    },
  },
  'POST /system/peripheral/motors/move': {
    request: {
      motors: [
        {
          id: 1,
          position: 50,
        },
      ],
    },
    response: {
      success: true,
      motors: [
        {
          id: 1,
          position: 78.499,
          state: 1,
        },
      ],
    },
  },
  'GET /system/battery': {
    response: {
      success: true,
      level: 80,
      charging: false,
      timeRemaining: 574,
      temperature: 25.4,
      health: 'good',
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
  'DELETE /system/recordings/{name}': {
    response: {
      success: true,
    },
  },
  'POST /electrodes/impedance/schedule': {
    request: {
      interval: 5,
      unit: 'm',
      duration: 60,
      action: 'check',
      thresholdIncrease: 50,
    },
    response: {
      success: true,
      scheduleId: '129d8501-3432-475e-9814-10cf3fbd826a',
      schedule: {
        scheduleId: '129d8501-3432-475e-9814-10cf3fbd826a',
        interval: 5,
        unit: 'm',
        duration: 60,
        action: 'check',
        thresholdIncrease: 50,
        checks: 0,
        skipped: 0,
        endsAt: '2026-11-26T16:02:27.797Z',
        baseline: null,
      },
    },
  },
  'DELETE /electrodes/impedance/schedule/{id}': {
    response: {
      success: true,
      scheduleId: '129d8501-3432-475e-9814-10cf3fbd826a',
    },
  },
};

/** An error answer, as every operation's 4xx and 5xx responses show it. */
export const ERROR_EXAMPLE = {
  success: false,
  error: {
    code: 'invalid_request',
    message: "The stream at /nodes/0/config/amplitudes: signal-generator: 'amplitudes' is required.",
    details: {
      path: '/nodes/0/config/amplitudes',
      errors: [{ path: '/nodes/0/config/amplitudes', message: "signal-generator: 'amplitudes' is required" }],
    },
  },
};

/** The examples of one route, found by its method and path (Fastify's `:param` or OpenAPI's `{param}`). */
export function examplesOf(method: string, url: string): OperationExamples | undefined {
  const path = url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  const canonical = path === '/streams' || path.startsWith('/streams/') ? `/stream${path}` : path;
  return OPERATION_EXAMPLES[`${method.toUpperCase()} ${canonical}`];
}

type RouteSchema = { body?: unknown; response?: Record<string, unknown> } & Record<string, unknown>;

/** The schema of an answer with its example: a JSON schema gets `examples`, a response object (text, files) its media types' `example`. */
function withResponseExample(schema: unknown, example: unknown): unknown {
  if (schema === null || typeof schema !== 'object') return schema;
  const content = (schema as { content?: Record<string, object> }).content;
  if (content === undefined) return { ...schema, examples: [example] };
  const withText = Object.fromEntries(
    Object.entries(content).map(([type, media]) => [
      type,
      typeof example === 'string' && (type.startsWith('text/') || type.startsWith('image/svg'))
        ? { ...media, example }
        : media,
    ]),
  );
  return { ...schema, content: withText };
}

/** A copy of a route's schema with its examples: the body's, the first success answer's, other answers'. */
export function withExamples<T>(schema: T, method: string | string[], url: string): T {
  if (schema === undefined || schema === null) return schema;
  const methods = Array.isArray(method) ? method : [method];
  const examples = methods.map((m) => examplesOf(m, url)).find((e) => e !== undefined);
  if (examples === undefined) return schema;
  const route = { ...(schema as RouteSchema) };
  if (examples.request !== undefined && route.body !== undefined && route.body !== null) {
    route.body = { ...route.body, examples: [examples.request] };
  }
  const response = { ...route.response };
  const success = Object.keys(response).find((code) => code.startsWith('2'));
  if (examples.response !== undefined && success !== undefined) {
    response[success] = withResponseExample(response[success], examples.response);
  }
  if (examples.namedResponses !== undefined && success !== undefined) {
    // @fastify/swagger moves `x-examples` to the media type's named `examples`.
    response[success] = { ...(response[success] as object), 'x-examples': examples.namedResponses };
  }
  for (const [code, example] of Object.entries(examples.responses ?? {})) {
    if (response[code] !== undefined) response[code] = withResponseExample(response[code], example);
  }
  const upgrade = response['101'] as { description?: string } | undefined;
  if (examples.message !== undefined && upgrade !== undefined) {
    response['101'] = {
      ...upgrade,
      description: `${upgrade.description ?? ''} A message: \`${JSON.stringify(examples.message)}\``.trim(),
    };
  }
  route.response = response;
  return route as T;
}

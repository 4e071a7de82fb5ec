/**
 * The OpenAPI examples of the service's own system paths (health, configuration, version, jobs,
 * recordings, events, the clock, the debug command; the status is in ./status-examples.ts): answers the service gave (see
 * ../openapi-examples.ts).
 */
import type { OperationExamples } from './operation-examples.js';
import { EEG_ELECTRODES } from '../../core/electrodes.js';

/** A finished job, as GET /system/jobs/{id} answers it and DELETE of a finished job too. */
const FINISHED_JOB_ANSWER = {
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
};

export const SYSTEM_EXAMPLES: Readonly<Record<string, OperationExamples>> = {
  'GET /system/events': {
    message: { type: 'impedance', timestamp: 1795705321546, data: { O1: 13.87, O2: 11.02, CZ: 10.09 } },
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
        voltage: 4030,
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
      capabilities: {
        eeg: true,
        impedance: true,
        motors: true,
        leds: true,
        imu: true,
        battery: true,
        peripheralBus: true,
      },
      cpu: {
        load: 100,
        temperature: 40,
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
  'GET /simulator/stimulus': {
    response: {
      success: true,
      stimulus: { frequency: null, amplitude: 3, eyes: 'open', latencyMs: 137.2 },
    },
  },
  'POST /simulator/stimulus': {
    request: { frequency: 12 },
    response: {
      success: true,
      stimulus: { frequency: 12, amplitude: 3, eyes: 'open', latencyMs: 137.2 },
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
          channels: [...EEG_ELECTRODES],
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
          channels: [...EEG_ELECTRODES],
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
  'GET /system/jobs/{id}': {
    response: FINISHED_JOB_ANSWER,
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
    response: FINISHED_JOB_ANSWER,
  },
  'DELETE /system/recordings/{name}': {
    response: {
      success: true,
    },
  },
};

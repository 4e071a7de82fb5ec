/**
 * The OpenAPI examples of the system paths of the hardware (`/system/sensors`, `/system/motors`,
 * `/system/led`, `/system/peripheral`, `/system/battery`): answers the service gave (see
 * ../openapi-examples.ts).
 */
import type { OperationExamples } from './operation-examples.js';
import { EEG_ELECTRODES } from '../../core/electrodes.js';

export const HARDWARE_EXAMPLES: Readonly<Record<string, OperationExamples>> = {
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
        channels: [...EEG_ELECTRODES],
        gain: 24,
        samplingFrequency: 250,
      },
    },
    responses: {
      '409': {
        success: false,
        error: {
          code: 'device_busy',
          message:
            'EEG acquisition is held by streams that read it through an eeg-source node (quick streams included), and a reset would stop their samples: stopping those streams releases it, or reset anyway with DELETE /system/sensors/eeg?force=true (the streams then report the reset as degraded and take acquisition again with the restored configuration). The streams reading the EEG now: 5b634910-1014-41c1-8dd8-539fa4adf4a0 (POST /stream/streams/{id}/signal with signal=stop).',
          details: {
            heldBy: {
              activity: 'eeg_acquisition',
              owners: ['streams'],
              streams: ['5b634910-1014-41c1-8dd8-539fa4adf4a0'],
            },
          },
        },
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
};

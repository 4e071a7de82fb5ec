/** The OpenAPI examples of the guide paths (`/electrodes`, `/motors`, `/leds`): answers the service gave (see ../openapi-examples.ts). */
import type { OperationExamples } from './operation-examples.js';

export const GUIDE_EXAMPLES: Readonly<Record<string, OperationExamples>> = {
  'GET /electrodes/impedance/live': {
    message: { timestamp: 1795705321546, values: { O1: 13.87, O2: 11.02, Cz: 10.09 } },
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

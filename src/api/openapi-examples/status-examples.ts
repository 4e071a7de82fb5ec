/**
 * The OpenAPI example of GET /system/status, the longest answer of the system paths: an answer the
 * service gave (see ../openapi-examples.ts).
 */
import type { OperationExamples } from './operation-examples.js';
import { EEG_ELECTRODES, ELECTRODES } from '../../core/electrodes.js';

export const STATUS_EXAMPLES: Readonly<Record<string, OperationExamples>> = {
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
            channels: [...EEG_ELECTRODES],
            gain: 12,
            samplingFrequency: 250,
          },
        },
        channels: {
          played: [
            { name: 'Pz', unit: 'µV', type: 'EEG', position: { x: 0.0, y: -0.342 } },
            { name: 'O1', unit: 'µV', type: 'EEG', position: { x: -0.217, y: -0.717 } },
            { name: 'O2', unit: 'µV', type: 'EEG', position: { x: 0.217, y: -0.717 } },
            { name: 'P3', unit: 'µV', type: 'EEG', position: { x: -0.315, y: -0.38 } },
            { name: 'P4', unit: 'µV', type: 'EEG', position: { x: 0.323, y: -0.374 } },
            { name: 'T5', unit: 'µV', type: 'EEG', position: { x: -0.625, y: -0.508 } },
            { name: 'T6', unit: 'µV', type: 'EEG', position: { x: 0.627, y: -0.506 } },
            { name: 'C3', unit: 'µV', type: 'EEG', position: { x: -0.399, y: 0.017 } },
            { name: 'C4', unit: 'µV', type: 'EEG', position: { x: 0.407, y: 0.021 } },
            { name: 'T3', unit: 'µV', type: 'EEG', position: { x: -0.847, y: -0.016 } },
            { name: 'T4', unit: 'µV', type: 'EEG', position: { x: 0.848, y: -0.006 } },
            { name: 'Cz', unit: 'µV', type: 'EEG', position: { x: 0.001, y: 0.026 } },
            { name: 'F7', unit: 'µV', type: 'EEG', position: { x: -0.666, y: 0.537 } },
            { name: 'F8', unit: 'µV', type: 'EEG', position: { x: 0.666, y: 0.539 } },
            { name: 'F3', unit: 'µV', type: 'EEG', position: { x: -0.334, y: 0.446 } },
            { name: 'F4', unit: 'µV', type: 'EEG', position: { x: 0.34, y: 0.454 } },
            { name: 'Fp1', unit: 'µV', type: 'EEG', position: { x: -0.239, y: 0.792 } },
            { name: 'Fp2', unit: 'µV', type: 'EEG', position: { x: 0.236, y: 0.793 } },
            { name: 'Fz', unit: 'µV', type: 'EEG', position: { x: 0.0, y: 0.418 } },
          ],
          unplayed: [],
        },
        impedance: {
          measuring: false,
        },
        motors: {
          moving: [],
          stalled: [...ELECTRODES],
        },
        streams: {
          total: 1,
          running: 0,
        },
        battery: {
          percent: 80,
          isCharging: false,
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
};

/**
 * Examples of the maker's SDK paths (tag instinct-sdk; docs/instinct-sdk.md): requests as the SDK
 * sends them and the answers the service gave.
 */
import type { OperationExamples } from './operation-examples.js';

const STREAM = '5d3f1a20-7c4b-4e8d-9a1b-2c3d4e5f6a10';
const SOURCE = 'aaaaaaaa-2222-4333-8444-555555555555';
const LOG = 'bbbbbbbb-2222-4333-8444-555555555555';
const PIPE = 'cccccccc-2222-4333-8444-555555555555';

const sourceNode = {
  executable: 'signal-generator',
  config: { sampleRate: 250, amplitudes: [1], frequencies: [10], channels: 1 },
  id: SOURCE,
  meta: null,
};
const logNode = { executable: 'logger', config: {}, id: LOG, meta: { author: 'lab', version: '1.1.0' } };
const pipe = { source: SOURCE, destination: LOG, id: PIPE };
const stream = {
  id: STREAM,
  meta: {
    name: 'Alpha',
    version: '1.0.0',
    created: '2026-11-27T07:43:14.292Z',
    updated: '2026-11-27T07:43:14.292Z',
  },
  nodes: [sourceNode, logNode],
  pipes: [pipe],
  state: 'running',
};
const created = { ...stream, state: 'created' };
const answer = (message: string, value = stream) => ({ message, success: true, stream: value });
const entry = {
  key: 'userPreference.theme',
  value: 'dark',
  id: '1b4539e8-be27-44e0-9940-1b45dd9b1d46',
  expires_in: '1h',
  expires_on: '2026-11-27T08:43:09.562Z',
  created_at: '2026-11-27T07:43:09.561Z',
  updated_at: '2026-11-27T07:43:09.561Z',
};
const entryBody = {
  key: 'userPreference.theme',
  value: 'dark',
  id: null,
  expires_in: '1h',
  expires_on: null,
  created_at: null,
  updated_at: null,
};

export const INSTINCT_EXAMPLES: Readonly<Record<string, OperationExamples>> = {
  'POST /streams/stream': {
    request: {
      id: STREAM,
      nodes: [sourceNode, logNode],
      pipes: [pipe],
      meta: { name: 'Alpha', version: '1.0.0' },
    },
    response: answer(`Stream ${STREAM} created.`, created),
  },
  'GET /streams/stream': { response: [stream] },
  'GET /streams/stream/{id}': { response: stream },
  'DELETE /streams/stream/{id}': { response: answer(`Stream ${STREAM} deleted.`) },
  'POST /streams/stream/start': {
    request: { streamId: STREAM },
    response: answer(`Stream ${STREAM}: start done.`),
  },
  'POST /streams/stream/stop': {
    request: { streamId: STREAM },
    response: answer(`Stream ${STREAM}: stop done.`, { ...stream, state: 'stopped' }),
  },
  'POST /streams/stream/reconcile': {
    request: { streamId: STREAM },
    response: answer(`Stream ${STREAM}: reconcile done.`),
  },
  'POST /streams/stream/signal': {
    request: { streamId: STREAM, signal: { signal: 'stop', parameters: {} } },
    response: answer(`Stream ${STREAM}: stop done.`, { ...stream, state: 'stopped' }),
  },
  'POST /streams/node': {
    request: { streamId: STREAM, node: logNode },
    response: { message: `Node ${LOG} added to stream ${STREAM}.`, success: true, node: logNode },
  },
  'POST /streams/node/signal': {
    request: {
      streamId: STREAM,
      nodeId: LOG,
      signal: { signal: 'marker', parameters: { text: 'eyes closed' } },
    },
    response: { message: `Signal 'marker' delivered to node ${LOG}.`, success: true, node: logNode },
  },
  'DELETE /streams/node/{streamId}/{nodeId}': {
    response: { message: `Node ${LOG} removed with pipes ${PIPE}.`, success: true, node: logNode },
  },
  'POST /streams/pipe': {
    request: { streamId: STREAM, pipe },
    response: { message: `Pipe ${PIPE} added to stream ${STREAM}.`, success: true, pipe },
  },
  'DELETE /streams/pipe/{streamId}/{pipeId}': {
    response: { message: `Pipe ${PIPE} removed from stream ${STREAM}.`, success: true, pipe },
  },
  'GET /system/system/hostname': { response: { name: 'headset' } },
  'PATCH /system/system/hostname': {
    request: { hostname: 'lab-one' },
    response: { message: 'The device is named lab-one.', success: true, name: 'lab-one' },
  },
  'POST /system/system/debug': {
    request: {
      cmd_resp: '1',
      peripheral: '1',
      peripheral_channels: '0',
      parameter: ['0', '3'],
      packet_type: '1',
    },
    response: {
      cmd_resp: 0,
      peripheral: 1,
      peripheral_channels: 0,
      parameter: [0, 3],
      data: [62, 250, 24],
      packet_type: 2,
    },
  },
  'GET /system/electrodes': {
    response: [
      { position: 'PZ', enabled: true, gain: 24 },
      { position: 'O1', enabled: true, gain: 24 },
      { position: 'CMS', enabled: true, gain: null },
    ],
  },
  'GET /system/electrodes/{position}': { response: { position: 'PZ', enabled: true, gain: 24 } },
  'PATCH /system/electrodes/{position}': {
    request: { position: 'PZ', enabled: false, gain: 2.0 },
    response: {
      message: 'PZ disabled.',
      success: true,
      electrode: { position: 'PZ', enabled: false, gain: 2 },
    },
  },
  'GET /system/sensors': {
    response: [
      { type: 'eeg', enabled: false, sample_rate: 250, range: null },
      { type: 'imu', enabled: true, sample_rate: 100, range: null },
      { type: 'accelerometer', enabled: true, sample_rate: 100, range: null },
    ],
  },
  'GET /system/sensors/{type}': { response: { type: 'eeg', enabled: false, sample_rate: 250, range: null } },
  'PATCH /system/sensors/{type}': {
    request: { type: 'eeg', enabled: true, sample_rate: 500, range: null },
    response: {
      message: 'EEG acquisition on at 500 Hz.',
      success: true,
      sensor: { type: 'eeg', enabled: true, sample_rate: 500, range: null },
    },
  },
  'POST /system/config': { request: entryBody, response: entry },
  'GET /system/config/{key}': { response: entry },
  'PUT /system/config/{key}': {
    request: { ...entryBody, value: 'light', expires_in: null },
    response: {
      ...entry,
      value: 'light',
      expires_in: null,
      expires_on: null,
      updated_at: '2026-11-27T07:50:00.000Z',
    },
  },
  'DELETE /system/config/{key}': {
    response: { message: 'Entry userPreference.theme deleted.', success: true, config: entry },
  },
};

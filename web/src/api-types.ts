/**
 * The answers of the API the dashboard reads, typed from the service's own TypeBox schemas (the
 * ones that validate requests and write the OpenAPI document), so a change of an answer's shape
 * shows here as a type error instead of a silent difference. Only types cross over: every import
 * is `import type`, which esbuild erases, so no code of the service lands in the page (a test
 * checks the bundle's inputs: test/web/bundle.test.ts).
 */
import type { Static } from 'typebox';
import type {
  StreamListResponse,
  StreamReadResponse,
  StreamStatusResponse,
} from '../../src/platform/schemas/responses.js';
import type { FrameJson } from '../../src/core/frame.js';
import type { RecordingSchema } from '../../src/platform/schemas/recordings.js';
import type {
  DeviceStatusShape,
  EegConfigShape,
  HealthRecord,
  ImuReadingShape,
  LedReadingAnswer,
} from '../../src/api/system/schemas.js';
import type { JobShape } from '../../src/api/job-shapes.js';
import type { EventMessage } from '../../src/platform/schemas/events.js';
import type { ImpedanceSessionAnswer } from '../../src/platform/schemas/impedance.js';

export type { FrameJson };

/** GET /stream/streams: one stream of the list. */
export type StreamSummary = Static<typeof StreamListResponse>['streams'][number];
/** GET /stream/streams/{id}: the stream as stored. */
export type StreamDocument = Static<typeof StreamReadResponse>['stream'];
export type NodeDef = StreamDocument['nodes'][number];
/** A stored pipe always names its `destination` (`target` is only the alias a request may use). */
export type PipeDef = Omit<StreamDocument['pipes'][number], 'destination' | 'target'> & {
  destination: string;
};

type StatusAnswer = Static<typeof StreamStatusResponse>['status'];
export type NodeMetrics = StatusAnswer['nodes'][number]['metrics'];
/**
 * GET /stream/streams/{id}/status; a websocket node adds the `port` and `host` it listens on and
 * its `format` (`json` or `binary`).
 */
export type StreamStatus = Omit<StatusAnswer, 'nodes'> & {
  nodes: (StatusAnswer['nodes'][number] & { port?: number; host?: string; format?: string })[];
};

/** GET /system/recordings: one file. */
export type Recording = Static<typeof RecordingSchema>;

export type EegConfig = Static<typeof EegConfigShape>;
export type Imu = Static<typeof ImuReadingShape>;
/** GET /system/status; `eeg` is the device's acquisition state (an open object in the schema). */
export type DeviceStatus = Omit<Static<typeof DeviceStatusShape>, 'eeg'> & {
  eeg: { streaming: boolean; owners: string[]; samples: number; config: EegConfig };
};
/** GET /system/healthz: the health record. */
export type Health = Static<typeof HealthRecord>;
/** GET /system/led/state. */
export type Led = Omit<Static<typeof LedReadingAnswer>, 'success'>;
/**
 * GET /system/jobs/{id}: `progress` as the electrode operations report it (each electrode's
 * position, motor state, impedance, attempts and end reason); `result` is an open object, read as
 * the panel needs.
 */
export type Job = Static<typeof JobShape>;
/** GET /electrodes/impedance: the latest impedance session, its values and status. */
export type ImpedanceSession = Static<typeof ImpedanceSessionAnswer>;
/** One message of WebSocket GET /system/events: a device event, a service event or a job's change. */
export type DeviceEvent = Static<typeof EventMessage>;

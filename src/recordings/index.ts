/**
 * Recordings on disk: names and paths, metadata sidecars, the listing of the recordings API and
 * startup repair. Imports formats/ (readers, repair) and nothing of HTTP or the runtime.
 */
export { activeRecordingNames, type NodeStatusLike } from './active.js';
export { describeRecording, listRecordings, type RecordingSummary, type SkipLog } from './listing.js';
export {
  eventsNameOf,
  filenameProblem,
  formatOfName,
  isPlainName,
  isTemporaryName,
  MAX_FILENAME_BYTES,
  pendingPath,
  recordingNameProblem,
  recordingPath,
  recordingsDir,
  sidecarPath,
} from './paths.js';
export { type RecordingRepair, repairCsv, repairRecordings } from './repair.js';
export {
  type RecordingFormat,
  type RecordingMeta,
  readSidecar,
  removeSidecar,
  writeSidecar,
} from './sidecar.js';

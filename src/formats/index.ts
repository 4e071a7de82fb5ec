/**
 * Recording file formats: EDF/EDF+/BDF/BDF+ (read, crash-safe write, repair), CSV (write, and a
 * small reader), OpenBCI GUI text recordings (read), and channel-label → electrode mapping.
 * Imports nothing of the service but its error class (docs/architecture.md: dependencies point down).
 */
export { CsvWriter, type CsvWriterOptions, csvField, formatTimestamp } from './csv-writer.js';
export { parseCsv, readCsvFile } from './csv-reader.js';
export type { EdfFormat, EdfHeader, EdfSignalHeader, EdfVariant } from './edf-header.js';
export { type EdfAnnotation, EdfReader, toPhysical } from './edf-reader.js';
export { MAX_RECORD_BYTES, chooseRecordDuration } from './edf-record-duration.js';
export { type RepairResult, repairEdf } from './edf-repair.js';
export {
  ANNOTATION_BYTES_TARGET,
  type EdfChannel,
  EdfWriter,
  type EdfWriterOptions,
  MAX_ANNOTATION_TEXT_BYTES,
} from './edf-writer.js';
export { matchElectrode, recordedLabel } from './labels.js';
export { type OpenBciRecording, readOpenBciCsv } from './openbci-csv.js';

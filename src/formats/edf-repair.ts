/**
 * Repair of an EDF/BDF file left by a writer that was killed: drops a torn last record (bytes
 * after the last whole record) and sets the header's record count (byte 236, EDF spec) to the
 * number of whole records, then syncs. The header itself must be whole and parseable: a file torn
 * inside its header cannot be repaired and is refused with a FormatError.
 */
import { closeSync, fdatasyncSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { FormatError } from './format-error.js';
import { FIXED_HEADER_BYTES, parseEdfHeader, RECORD_COUNT_OFFSET, signalCountOf } from './edf-header.js';

export interface RepairResult {
  /** True when the file was changed. */
  repaired: boolean;
  /** Whole data records in the file after repair. */
  records: number;
  /** Bytes of a torn record cut from the end. */
  truncatedBytes: number;
}

/** Truncates a torn last record and fixes the record count; see the file comment. */
export function repairEdf(path: string): RepairResult {
  const fd = openSync(path, 'r+');
  try {
    const size = fstatSync(fd).size;
    const fixed = Buffer.alloc(FIXED_HEADER_BYTES);
    if (readSync(fd, fixed, 0, FIXED_HEADER_BYTES, 0) < FIXED_HEADER_BYTES) {
      throw new FormatError(`${path}: the file is torn inside its header; it cannot be repaired.`);
    }
    const headerBytes = FIXED_HEADER_BYTES * (signalCountOf(fixed) + 1);
    const bytes = Buffer.alloc(headerBytes);
    if (readSync(fd, bytes, 0, headerBytes, 0) < headerBytes) {
      throw new FormatError(`${path}: the file is torn inside its header; it cannot be repaired.`);
    }
    // The count is what repair rewrites: parse the rest even when the field itself is garbage.
    const countField = bytes
      .subarray(RECORD_COUNT_OFFSET, RECORD_COUNT_OFFSET + 8)
      .toString('latin1')
      .trim();
    const countKnown = /^-?\d+$/.test(countField);
    if (!countKnown) bytes.write('-1      ', RECORD_COUNT_OFFSET, 'latin1');
    const header = parseEdfHeader(bytes);
    const records = Math.floor((size - headerBytes) / header.recordBytes);
    const truncatedBytes = size - headerBytes - records * header.recordBytes;
    let repaired = false;
    if (truncatedBytes > 0) {
      ftruncateSync(fd, headerBytes + records * header.recordBytes);
      repaired = true;
    }
    if (!countKnown || header.recordCountField !== records) {
      const field = Buffer.from(String(records).padEnd(8, ' '), 'latin1');
      writeSync(fd, field, 0, 8, RECORD_COUNT_OFFSET);
      repaired = true;
    }
    if (repaired) fdatasyncSync(fd);
    return { repaired, records, truncatedBytes };
  } finally {
    closeSync(fd);
  }
}

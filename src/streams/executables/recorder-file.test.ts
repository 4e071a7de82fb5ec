/**
 * The recorder answers what the file writers refuse (formats' own FormatError) as the service's
 * 422 `validation_failed`, with the writer's sentence: a stream's start or an `annotate` signal
 * gets an error a person can act on, never an internal error.
 */
import { readdirSync, rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HeadsetdError } from '../../core/errors.js';
import { RecordingFile, type SegmentSpec } from './recorder-file.js';
import { scratchDir } from '../../../test/support/scratch.js';

describe('RecordingFile', () => {
  let dir: string;
  beforeEach(() => {
    dir = scratchDir('headsetd-recorder-file');
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const spec = (overrides: Partial<SegmentSpec>): SegmentSpec => ({
    dir,
    name: 'take.edf',
    format: 'edf',
    channels: ['Cz'],
    sampleRate: 250,
    startTime: Date.UTC(2026, 0, 1),
    physicalMin: -1000,
    physicalMax: 1000,
    includeTimestamps: false,
    streamId: 's',
    nodeId: 'rec',
    ...overrides,
  });

  function refusal(work: () => unknown): HeadsetdError {
    try {
      work();
    } catch (error) {
      if (error instanceof HeadsetdError) return error;
      throw error;
    }
    throw new Error('not refused');
  }

  it('answers a layout EDF cannot hold as validation_failed and leaves no file', () => {
    const error = refusal(() => RecordingFile.open(spec({ channels: [] })));
    expect(error.code).toBe('validation_failed');
    expect(error.message).toMatch(/1 to 639 channels/);
    expect(readdirSync(dir).filter((name) => !name.startsWith('.'))).toEqual([]);
  });

  it('answers an annotation EDF cannot hold as validation_failed', () => {
    const file = RecordingFile.open(spec({}));
    try {
      const error = refusal(() => {
        file.annotate(Number.NaN, 'blink');
      });
      expect(error.code).toBe('validation_failed');
      expect(error.message).toMatch(/onset/);
    } finally {
      file.close();
    }
  });
});

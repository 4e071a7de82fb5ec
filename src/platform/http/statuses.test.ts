import { describe, expect, it } from 'vitest';
import { ERROR_CATALOG, type ErrorCode, HeadsetdError } from '../../core/errors.js';
import { HTTP_STATUS, httpStatus } from './statuses.js';

describe('HTTP statuses of the error codes', () => {
  it('gives every code of the catalog a 4xx or 5xx status, and no other code one', () => {
    expect(Object.keys(HTTP_STATUS).sort()).toEqual(Object.keys(ERROR_CATALOG).sort());
    for (const status of Object.values(HTTP_STATUS)) expect(status >= 400 && status < 600).toBe(true);
  });

  it('answers an error with the status of its code', () => {
    for (const code of Object.keys(ERROR_CATALOG) as ErrorCode[]) {
      expect(httpStatus(new HeadsetdError(code))).toBe(HTTP_STATUS[code]);
      expect(httpStatus(code)).toBe(HTTP_STATUS[code]);
    }
    expect(httpStatus('stream_not_found')).toBe(404);
    expect(httpStatus(new HeadsetdError('device_busy', 'Measuring.'))).toBe(409);
  });
});

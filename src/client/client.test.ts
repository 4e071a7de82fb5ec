/**
 * The client's pieces that a spawned command cannot show: colours on a terminal only and never
 * with NO_COLOR, redrawing in place on a terminal, table widths with colours, the RMS window,
 * the connection's token rules and how an API error reads.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { resolveConnection } from './connection.js';
import { ApiError, describeApiError, envelopeOf } from './failures.js';
import { LiveView, progressBar } from './live.js';
import { Output } from './output.js';
import { table } from './table.js';
import { RmsWindow } from './commands/eeg-watch.js';
import { TextSink } from '../../test/support/text-sink.js';
import { scratchDir } from '../../test/support/scratch.js';

function sink(isTTY: boolean) {
  const written: string[] = [];
  return { stream: new TextSink(isTTY, (text) => written.push(text)), written };
}

describe('output', () => {
  test('colours only on a terminal, and not with NO_COLOR', () => {
    const tty = sink(true);
    expect(new Output(tty.stream, tty.stream, false, {}).style('red', 'x')).toContain('\x1b[');
    expect(new Output(tty.stream, tty.stream, false, { NO_COLOR: '1' }).style('red', 'x')).toBe('x');
    const pipe = sink(false);
    expect(new Output(pipe.stream, pipe.stream, false, {}).style('red', 'x')).toBe('x');
  });

  test('a live view redraws in place on a terminal and appends elsewhere', () => {
    const tty = sink(true);
    const view = new LiveView(new Output(tty.stream, tty.stream, false, {}));
    view.draw(['a', 'b']);
    view.draw(['c', 'd']);
    expect(tty.written.join('')).toBe('a\nb\n\x1b[2F\x1b[Jc\nd\n');
    const pipe = sink(false);
    const plain = new LiveView(new Output(pipe.stream, pipe.stream, false, {}));
    plain.draw(['a']);
    plain.draw(['b']);
    expect(pipe.written.join('')).toBe('a\n\nb\n\n');
  });

  test('tables align on visible text, colour codes and multi-byte units aside', () => {
    const lines = table(
      [
        { name: 'O1', value: '5.00 kΩ' },
        { name: 'FP1', value: '\x1b[31m12.00 kΩ\x1b[39m' },
      ],
      [
        { header: 'ELECTRODE', value: (r) => r.name },
        { header: 'VALUE', value: (r) => r.value, align: 'right' },
      ],
    );
    expect(lines).toEqual([
      'ELECTRODE     VALUE',
      'O1          5.00 kΩ',
      'FP1        \x1b[31m12.00 kΩ\x1b[39m',
    ]);
    expect(progressBar(0.5, 4)).toBe('[██░░]');
    expect(progressBar(2, 2)).toBe('[██]');
  });
});

describe('RMS window', () => {
  test('is the RMS about the mean over the last seconds, and starts over at a new rate', () => {
    const window = new RmsWindow(1);
    // 4 Hz: keeps the last 4 rows. A constant offset of 100 is removed.
    for (const rows of [[[0]], [[100 + 1]], [[100 - 1]], [[100 + 1]], [[100 - 1]]])
      window.add({ timestamp: 0, sampleRate: 4, channels: ['O1'], data: rows });
    expect(window.rms()?.values.O1).toBeCloseTo(1, 12);
    expect(window.rms()?.samples).toBe(4);
    window.add({ timestamp: 0, sampleRate: 8, channels: ['O1'], data: [[5]] });
    expect(window.rms()).toEqual({ sampleRate: 8, samples: 1, values: { O1: 0 } });
  });
});

describe('connection', () => {
  const dataDir = scratchDir('headsetd-client');
  writeFileSync(path.join(dataDir, 'token'), 'file-token\n');
  const base = { env: {}, defaultDataDir: dataDir, cwd: tmpdir() };

  test('reads the data directory token for a local service only, and a given token wins', () => {
    expect(resolveConnection(base)).toEqual({ url: 'http://127.0.0.1:42069', token: 'file-token' });
    expect(resolveConnection({ ...base, url: 'http://[::ffff:127.0.0.1]:9' }).token).toBe('file-token');
    expect(resolveConnection({ ...base, url: 'http://headset.local:42069' }).token).toBeUndefined();
    expect(resolveConnection({ ...base, token: 'given' }).token).toBe('given');
    expect(
      resolveConnection({ ...base, env: { HEADSETD_TOKEN: 'env', HEADSETD_URL: 'http://10.0.0.2:1/' } }),
    ).toEqual({
      url: 'http://10.0.0.2:1',
      token: 'env',
    });
    expect(resolveConnection({ ...base, dataDir: path.join(dataDir, 'none') }).token).toBeUndefined();
  });

  test("a relative data directory is in the working directory given, not the process's", () => {
    const relative = { ...base, cwd: path.dirname(dataDir), dataDir: path.basename(dataDir) };
    expect(resolveConnection(relative).token).toBe('file-token');
  });

  test('refuses a URL that is not http', () => {
    expect(() => resolveConnection({ ...base, url: 'ftp://x' })).toThrow(/http/);
  });
});

describe('API errors', () => {
  test('read as the message, the pointer and the other problems', () => {
    const error = new ApiError(
      422,
      envelopeOf(
        422,
        JSON.stringify({
          success: false,
          error: {
            code: 'validation_failed',
            message: 'Bad rate.',
            details: {
              path: '/nodes/0/config/sampleRate',
              errors: [{}, { path: '/x', message: 'also bad' }],
            },
          },
        }),
      ),
    );
    expect(describeApiError(error)).toEqual([
      'Bad rate. (validation_failed, HTTP 422)',
      '  at /nodes/0/config/sampleRate',
      '  also: /x: also bad',
    ]);
    expect(envelopeOf(502, '<html>bad gateway</html>').error.message).toContain('HTTP 502');
  });
});

/**
 * `headsetd serve --device cyton:…|lsl:…` as a user runs it: a live device that cannot be served
 * (no driver for its prefix in this build, or an amplifier that is not there) stops the start-up
 * with exit code 1 and one line naming the device, before anything listens; a malformed `--device`
 * names the forms there are.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { CLI, tempDataDir } from '../support/service.js';

function serve(device: string) {
  return spawnSync(
    process.execPath,
    [CLI, 'serve', '--port', '0', '--data-dir', tempDataDir(), '--log-level', 'silent', '--device', device],
    { encoding: 'utf8', timeout: 20_000 },
  );
}

describe('headsetd serve --device on a live amplifier', () => {
  test('a Cyton that cannot be served exits 1 naming the device, before listening', () => {
    const result = serve('cyton:/nonexistent/ttyUSB9');
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^headsetd: The device 'cyton:\/nonexistent\/ttyUSB9' /);
    // Without the driver in the build, or with it and no such port.
    expect(result.stderr).toMatch(/needs the cyton driver|cannot be opened/);
  });

  test('an LSL stream that is not there exits 1 with the driver’s reason, from the device’s thread', () => {
    const result = serve('lsl:name=Nobody Here?wait=1');
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^headsetd: The device 'lsl:name=Nobody Here\?wait=1' cannot be opened: No LSL stream matches name=Nobody Here \(LSL query/,
    );
  });

  test('an LSL argument the driver refuses exits 1 saying why, from the device’s thread', () => {
    const result = serve('lsl:type=EEG?wait=soon');
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^headsetd: The device 'lsl:type=EEG\?wait=soon' cannot be opened: .*wait must be seconds/,
    );
  });

  test('--device with an unknown prefix exits with the forms there are', () => {
    const result = serve('serial:/dev/ttyUSB0');
    expect(result.status).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      'cyton:SERIAL_PORT (an OpenBCI Cyton board, e.g. cyton:/dev/ttyUSB0) or lsl:QUERY (an LSL stream, e.g. lsl:type=EEG',
    );
  });
});

/**
 * The client commands that drive the headset, against a real service on the simulated headset:
 * eeg (config, start, watch from the live EEG socket, stop), impedance, motors and seat (with
 * the cancellation of Ctrl-C).
 *
 * Two services, side by side: one for acquisition and impedance, one for the motors and seating,
 * whose jobs move electrodes on the device's own time (seconds each) and hold the impedance meter
 * that acquisition excludes. The tests of each run one after another (a seating starts where the
 * move before left the electrodes, as on one headset: from retracted it would take twice as long);
 * commands whose answers do not depend on each other run at once.
 *
 * The commands run in the test's process (test/support/client-cli.ts), but for the Ctrl-C of a
 * seating, sent as SIGINT to dist/headsetd.mjs started as a process: the built program, end to end.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli, spawnFollowCli } from '../support/client-cli.js';
import { json, type Service, startService } from '../support/service.js';
import { eventually } from '../support/wait.js';

let service: Service;
let motorService: Service;

beforeAll(async () => {
  [service, motorService] = await Promise.all([
    startService({ args: ['--seed', '7'] }),
    startService({ args: ['--seed', '7'] }),
  ]);
});

afterAll(async () => {
  await Promise.all([service.stop(), motorService.stop()]);
});

function cli(...args: string[]) {
  return runCli(['--url', service.url, ...args]);
}

function motorCli(...args: string[]) {
  return runCli(['--url', motorService.url, ...args]);
}

describe.concurrent('acquisition and impedance', () => {
  describe('headsetd eeg', { concurrent: false }, () => {
    test('config shows and changes the configuration; start, watch and stop', async () => {
      // A refused change changes nothing: it runs beside the first reading.
      const [shown, refused] = await Promise.all([cli('eeg', 'config'), cli('eeg', 'config', '--gain', '3')]);
      expect(shown.stdout).toMatch(/^channels\s+PZ O1 O2 .* FZ\nsamplingFrequency\s+250 Hz\ngain\s+24\n$/);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(/validation_failed, HTTP 422\)\n {2}at \/gain\n/);
      const changed = JSON.parse(
        (await cli('eeg', 'config', '--rate', '500', '--channels', 'O1,O2', '--json')).stdout,
      );
      expect(changed.config).toEqual({ channels: ['O1', 'O2'], gain: 24, samplingFrequency: 500 });

      expect((await cli('eeg', 'start')).stdout).toBe('acquiring: 2 channels (O1 O2), 500 Hz, gain 24\n');
      // While acquiring, at once: impedance refused (it is exclusive with acquisition: the service's
      // refusal, exit 1), and two watches of the live EEG.
      const [busy, watched, table] = await Promise.all([
        cli('impedance'),
        cli('eeg', 'watch', '--count', '2', '--interval', '100', '--json'),
        cli('eeg', 'watch', '--count', '1', '--interval', '100'),
      ]);
      expect(busy.status).toBe(1);
      expect(busy.stderr).toContain('device_busy, HTTP 409');

      expect(watched.status).toBe(0);
      const updates = watched.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(updates).toHaveLength(2);
      for (const update of updates) {
        expect(update).toMatchObject({ sampleRate: 500, windowSeconds: 1 });
        expect(Object.keys(update.rms)).toEqual(['O1', 'O2']);
        for (const value of Object.values(update.rms)) expect(value).toBeGreaterThan(0);
      }
      expect(table.stdout).toMatch(
        /^EEG 500 Hz, 2 channels, RMS over 1 s \(µV\)\nCHANNEL\s+RMS µV\nO1\s+[\d.]+\s+\[█*░*\]\nO2\s+[\d.]+\s+\[█*░*\]\n\n$/,
      );
      expect(table.stdout).not.toContain('\x1b[');

      const stopped = await cli('eeg', 'stop');
      expect(stopped.stdout).toMatch(/^acquisition stopped after \d+ samples\n$/);
      expect(
        JSON.parse((await cli('eeg', 'config', '--reset', '--json')).stdout).config.samplingFrequency,
      ).toBe(250);
    });

    test('watch --start holds acquisition for the watch only', async () => {
      const watched = await cli('eeg', 'watch', '--start', '--count', '1', '--interval', '50', '--json');
      expect(watched.status).toBe(0);
      expect(Object.keys(JSON.parse(watched.stdout).rms)).toHaveLength(19);
      const { body } = await json(`${service.url}/system/status`);
      expect(body.status.eeg.streaming).toBe(false);
    });
  });

  describe('headsetd eeg config --reset', { concurrent: false }, () => {
    test('a device reset never leaves a stream running without samples: refused while a stream reads, --force resets and the stream takes acquisition again', async () => {
      const started = await json(`${service.url}/stream/start`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ channels: ['O1'] }),
      });
      expect(started.status).toBe(200);
      const id = started.body.streamId as string;
      try {
        // --force alone is a usage error, which makes no request.
        const [refused, forceAlone] = await Promise.all([
          cli('eeg', 'config', '--reset'),
          cli('eeg', 'config', '--force'),
        ]);
        expect(refused.status).toBe(1);
        expect(refused.stderr).toContain('device_busy, HTTP 409');
        expect(refused.stderr).toContain(id);
        expect(forceAlone.status).toBe(2);
        const forced = await cli('eeg', 'config', '--reset', '--force', '--json');
        expect(forced.status, forced.stderr).toBe(0);
        const eeg = await eventually(async () => {
          const { body } = await json(`${service.url}/system/status`);
          return body.status.eeg.owners.includes('streams') ? body.status.eeg : undefined;
        });
        expect(eeg.streaming).toBe(true);
      } finally {
        await json(`${service.url}/stream/streams/${id}`, { method: 'DELETE' });
      }
    });
  });

  describe('headsetd impedance', { concurrent: false }, () => {
    test('a table in kΩ with levels, and --json; --watch measures again', async () => {
      // At once: the device's meter takes the measurements one after another.
      const [human, scriptedRun, watched] = await Promise.all([
        cli('impedance', '--channels', 'O1,CZ'),
        cli('impedance', '--json'),
        cli('impedance', '--watch', '--count', '2', '--interval', '0', '--channels', 'O1', '--json'),
      ]);
      expect(human.status).toBe(0);
      expect(human.stdout).toMatch(
        /^ELECTRODE\s+kΩ\s+LEVEL\nO1\s+[\d.]+\s+(excellent|good|acceptable|poor|very poor)\nCZ\s+[\d.]+\s+\S+/,
      );
      expect(human.stdout).toContain('good 5–10 kΩ');
      const scripted = JSON.parse(scriptedRun.stdout);
      expect(Object.keys(scripted.electrodes)).toHaveLength(21);
      expect(scripted.electrodes.O1).toEqual({
        ohms: expect.any(Number),
        kiloohms: expect.any(Number),
        level: expect.stringMatching(/^(excellent|good|acceptable|poor|very_poor)$/),
      });
      const lines = watched.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines).toHaveLength(2);
      expect(Object.keys(lines[1].electrodes)).toEqual(['O1']);
    });
  });
});

describe.concurrent('motors and seating', () => {
  describe('headsetd motors and seat', { concurrent: false }, () => {
    test('move follows the motors to their end; get reads them; a bad displacement is the API error', async () => {
      // The refused move moves nothing: it runs beside the first.
      const [movedRun, refused] = await Promise.all([
        motorCli('motors', 'move', 'O1,O2', '--release', '20', '--json'),
        motorCli('motors', 'move', 'O1', '--release', '500'),
      ]);
      const moved = JSON.parse(movedRun.stdout);
      expect(moved).toEqual({ success: true, positions: { O1: 20, O2: 20 }, states: { O1: 0, O2: 0 } });
      const read = await motorCli('motors', 'get', '--electrodes', 'O1');
      expect(read.stdout).toBe('ELECTRODE  POSITION    MM  STATE\nO1             20.0  2.00  idle\n');
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain('validation_failed, HTTP 422');
      expect(refused.stderr).toMatch(/\n {2}at \/configuration\/0\/displacement\n/);
    });

    test('seat runs the job to its end and prints each electrode as it is done, then the results', async () => {
      // The refused strategy starts no job: it runs beside the first seating.
      const [seated, refused] = await Promise.all([
        motorCli(
          'seat',
          '--channels',
          'O1',
          '--strategy',
          'aggressive',
          '--max-attempts',
          '1',
          '--target',
          '1000',
        ),
        motorCli('seat', '--strategy', 'reckless'),
      ]);
      expect(seated.status).toBe(0);
      expect(seated.stdout).toMatch(
        /^O1 done: [\d.]+ kΩ \(target_reached\)\n\nstrategy aggressive, target 1000 kΩ\n/,
      );
      expect(seated.stdout).toMatch(/\nO1\s+[\d.]+ kΩ\s+[\d.]+ kΩ\s+\d+\s+[\d.]+\s+yes\s+target_reached\n$/);
      const scripted = await motorCli(
        'seat',
        '--channels',
        'O1',
        '--max-attempts',
        '1',
        '--target',
        '1000',
        '--json',
      );
      expect(JSON.parse(scripted.stdout)).toMatchObject({
        success: true,
        strategy: 'gentle',
        targetImpedance: 1000,
        results: { O1: { reached: true, reason: 'target_reached' } },
      });
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain('at /strategy');
    });

    test('seat exits 4 when an electrode does not reach the target (it exited 0 with 19 of 21 missed)', async () => {
      const args = ['seat', '--channels', 'O1,O2', '--strategy', 'aggressive', '--max-attempts', '1'];
      const missed = await motorCli(...args, '--target', '0.001');
      expect(missed.status).toBe(4);
      expect(missed.stdout).toMatch(/\nO1\s+[\d.]+ kΩ\s+[\d.]+ kΩ\s+\d+\s+[\d.]+\s+no\s+\w+\n/);
      expect(missed.stderr).toBe('headsetd: 2 of 2 electrode(s) did not reach 0.001 kΩ: O1, O2\n');
      const scripted = await motorCli(...args, '--target', '0.001', '--json');
      expect(scripted.status).toBe(4);
      expect(JSON.parse(scripted.stdout)).toMatchObject({
        success: false,
        results: { O1: { reached: false }, O2: { reached: false } },
      });
    });

    test('Ctrl-C cancels the seating job: exit 130, the job cancelled', async () => {
      const seat = spawnFollowCli(['--url', motorService.url, 'seat', '--channels', 'O2']);
      const job = await eventually(async () => {
        const { body } = await json(`${motorService.url}/system/jobs`);
        return body.jobs.find((j: { status: string; operation: string }) => j.status === 'running');
      });
      seat.interrupt();
      expect(await seat.exited).toBe(130);
      expect(seat.stderr()).toContain('seating cancelled');
      const { body } = await json(`${motorService.url}/system/jobs/${job.id}`);
      expect(body.job.status).toBe('cancelled');
    });

    test('reset brings every motor back to an end', async () => {
      const reset = JSON.parse((await motorCli('motors', 'reset', '--json')).stdout);
      expect(Object.keys(reset.positions)).toHaveLength(21);
      expect(Object.values(reset.positions).every((p) => p === 0)).toBe(true);
    });
  });
});

/**
 * `headsetd serve --device lsl:type=EEG&sourceId=…` end to end, against a liblsl outlet (lsltool's `eeg`
 * command: labelled channels, known values; liblsl 1.12 always, 1.16 where HEADSETD_ORACLES is
 * set): a stream eeg-source → recorder (BDF+) and eeg-source → band-pass → websocket. The BDF+
 * file, read back by EDFlib, holds exactly the values the outlet sent (within one BDF step) under
 * its channels under their own labels, each with its unit (the accelerometer axis in g as `g`); the outlet's program killed and started again is announced
 * (`device_lost`, `device_restored`; health degraded in between), marked (a discontinuity in the frames, an annotation in the
 * file), and the stream goes on with nothing duplicated, lost or invented.
 */
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { FrameClient } from '../runtime/helpers.js';
import { edflibCheck } from '../support/edf-check.js';
import { LIBLSL_VERSIONS, liblslEnv, liblslOf, LslTool, skipWithout } from '../support/liblsl.js';
import {
  annotationSamples,
  EventClient,
  recordedRows,
  recordedSamples,
  scipyBandpass,
  signalRate,
  signalStream,
  startRecordingStream,
} from '../support/live-e2e.js';
import { json, type Service, startService, tempDataDir } from '../support/service.js';
import { eventually } from '../support/wait.js';

const PORTS = { multicastPort: 35571, basePort: 35572, portRange: 16 };
const RATE = 250;
/**
 * Samples per outlet, pushed at once. A multiple of 3, the rows of a 10 ms frame at 250 Hz, so
 * that the last frame fills and leaves (a partial one waits for the next row); and the recorder
 * having all of them means the device let the outlet's last sample through (it holds each batch's
 * last sample until the outlet shows it still runs: see docs/lsl.md §When an outlet closes), so
 * the outlet can then be killed without that sample being taken for liblsl's close sample.
 */
const COUNT = 501;
const STREAM = '5e2f8a14-7b3c-4d9e-a06f-1b2c3d4e5f60';
/** The outlet's labels (10-10 names, voltage units, an accelerometer axis in g) and the names headsetd plays. */
const OUTLET_LABELS = 'Fp1:microvolts,T7:uV,AUX1:g,O2';
const LABELS = ['Fp1', 'T7', 'AUX1', 'O2'];
/** Each channel's unit in frames: the voltages scaled to µV, the accelerometer axis in its own g. */
const UNITS = ['µV', 'µV', 'g', 'µV'];
/** The outlet's columns that are played, in the order of LABELS: every one. */
const COLUMNS = [0, 1, 2, 3];
const CHANNELS = 4;

/** The value lsltool's `eeg` sends for overall sample k (round r, index i: k = r·COUNT + i), column c. */
const sent = (k: number, c: number): number => Math.fround(k * CHANNELS + c + 0.25);

const running: { tools: LslTool[]; service?: Service | undefined; events?: EventClient | undefined } = {
  tools: [],
};

afterEach(async () => {
  running.events?.close();
  await running.service?.stop();
  for (const tool of running.tools.splice(0)) tool.kill();
  running.service = undefined;
  running.events = undefined;
});

describe.for(LIBLSL_VERSIONS)('headsetd on an LSL stream of liblsl %s', (version) => {
  test('BDF+ holds the exact values under their own names; the outlet killed and restarted: lost, restored, marked, nothing duplicated', async (context) => {
    skipWithout(version, context);
    const lib = await liblslOf(version);
    const env = liblslEnv(PORTS);
    const name = `E2E EEG ${version}`;
    const outlet = (first: number, rounds: number): LslTool => {
      const tool = new LslTool(
        lib.tool,
        [
          lib.lib,
          'eeg',
          name,
          'EEG',
          `e2e-${version}`,
          '1',
          String(CHANNELS),
          String(RATE),
          String(COUNT),
          String(rounds),
          '-',
          OUTLET_LABELS,
          String(first),
          'gate',
        ],
        env,
        true,
      );
      running.tools.push(tool);
      return tool;
    };
    const first = outlet(0, 1);
    await first.waitFor('READY 0');

    const dataDir = tempDataDir();
    // The query names this version's source: the other version's outlets, killed as its test ended,
    // may still answer a query for any EEG stream for a moment.
    const service = await startService({
      dataDir,
      lsl: PORTS,
      args: ['--device', `lsl:type=EEG&sourceId=e2e-${version}`],
    });
    running.service = service;
    const events = await EventClient.connect(service);
    running.events = events;
    const status = await json(`${service.url}/system/status`);
    // Each channel under its own name and with its unit, the accelerometer axis in g included.
    const identity = await json(`${service.url}/system/version`);
    expect(identity.body.version).toMatchObject({ device: 'lsl' });
    const played = status.body.status.channels.played as { name: string; unit: string; type: string }[];
    expect(played.map((c) => [c.name, c.unit])).toEqual(LABELS.map((name, c) => [name, UNITS[c]]));
    expect(played[2]?.type).toBe('AUX');
    expect(status.body.status.channels.unplayed).toEqual([]);
    expect(status.body.status.capabilities).toMatchObject({
      eeg: true,
      impedance: false,
      motors: false,
      leds: false,
    });

    // The test outlet's values (up to about 4 000) are no accelerometer's: the g channel's range says so.
    const ws: FrameClient = await startRecordingStream(service, STREAM, 'lsl.bdf', {
      unitRanges: { g: 8192 },
    });
    // The outlet pushes once the websocket client is there to see the run's first frame.
    await first.waitFor('WAITING 0');
    first.send('');
    await first.waitFor('SENT 0');
    await eventually(
      async () => (await recordedSamples(service, STREAM)) >= COUNT,
      30_000,
      'round 0 recorded',
    );
    // The outlet's program killed; another one publishes the same source.
    first.kill();
    await eventually(() => events.of('device_lost').length > 0, 30_000, 'the device_lost event');
    // Until it is back, health says so. (The outlet pushes each round's 2 s of samples in a
    // fraction of a second, faster than its declared rate: the rate guard reports that too.)
    const health = (await json(`${service.url}/system/healthz`)).body;
    expect(health).toMatchObject({
      status: 'degraded',
      problems: expect.arrayContaining([expect.stringMatching(new RegExp(`'${name}'.* was lost: `))]),
    });
    expect(events.of('rate_mismatch').map((e) => e.message)).toEqual([
      expect.stringContaining('sends faster than the 250 Hz it declares'),
    ]);
    const second = outlet(1, 2);
    await second.waitFor('WAITING 1');
    second.send('');
    await eventually(() => events.of('device_restored').length > 0, 30_000, 'the device_restored event');
    await second.waitFor('SENT 1');
    await eventually(
      async () => (await recordedSamples(service, STREAM)) >= 2 * COUNT,
      30_000,
      'round 1 recorded',
    );
    await signalStream(service, STREAM, 'stop');
    ws.close();
    expect(events.of('samples_lost')).toEqual([]);

    const file = edflibCheck(path.join(service.dataDir, 'recordings', 'lsl.bdf'));
    expect(file.ok).toBe(true);
    expect(file.filetype).toBe(3);
    const signals = file.signals.filter((s) => s.label.trim() !== 'BDF Annotations');
    expect(signals.map((s) => s.label.trim())).toEqual(LABELS);
    expect(signals.map((s) => s.physicalDimension.trim())).toEqual(['uV', 'uV', 'g', 'uV']);
    expect(signals[2]?.physicalMax).toBe(8192);
    expect(signalRate(file)).toBe(RATE);
    // Both rounds, every sample once, in order, each within one BDF step of what was sent.
    const n = recordedRows(file);
    expect(n).toBe(2 * COUNT);
    for (let k = 0; k < n; k++) {
      signals.forEach((s, c) => {
        const step = (s.physicalMax - s.physicalMin) / (s.digitalMax - s.digitalMin);
        const value = s.samples?.[k] as number;
        expect(Math.abs(value - sent(k, COLUMNS[c] as number)), `sample ${k} ${s.label}`).toBeLessThanOrEqual(
          step,
        );
      });
    }
    // The restart is annotated at the first sample of the new outlet.
    const notes = annotationSamples(file, RATE).filter(
      (a) => !a.text.startsWith('Recording') && a.text !== '',
    );
    expect(notes.filter((a) => /Gap|Discontinuity/.test(a.text)).map((a) => a.sample)).toEqual([COUNT]);

    // The websocket: the channels at 250 Hz, a discontinuity at the start and after the
    // restart, and after it the new outlet's samples band-passed as scipy does it.
    const frames = ws.frames.map((r) => r.frame);
    expect(frames.every((f) => f.sampleRate === RATE && f.channels.join() === LABELS.join())).toBe(true);
    expect(frames.every((f) => f.units?.join() === UNITS.join())).toBe(true);
    const marks = frames.map((f, i) => (f.discontinuity === true ? i : -1)).filter((i) => i >= 0);
    expect(marks).toHaveLength(2);
    expect(frames.slice(0, marks[1]).flatMap((f) => f.data)).toHaveLength(COUNT);
    const filtered = frames.slice(marks[1]).flatMap((f) => f.data);
    expect(filtered).toHaveLength(COUNT);
    const input = Array.from({ length: COUNT }, (_, i) => COLUMNS.map((c) => sent(COUNT + i, c)));
    const expected = await scipyBandpass(input, RATE);
    let worst = 0;
    filtered.forEach((row, i) => {
      row.forEach((v, c) => {
        worst = Math.max(worst, Math.abs(v - (expected[i]?.[c] as number)));
      });
    });
    expect(worst).toBeLessThan(0.01);
  }, 180_000);
});

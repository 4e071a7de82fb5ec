import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FormatError } from './format-error.js';
import { EdfReader } from './edf-reader.js';
import { EdfWriter } from './edf-writer.js';
import { edflibCheck } from '../../test/support/edf-check.js';
import { type MneResult, mneRead } from '../../test/support/mne-check.js';
import { closeTo, EDF_FIXTURES, fixture } from '../../test/formats/fixtures.js';
import { scratchDir } from '../../test/support/scratch.js';

describe('EdfReader on the real fixtures', () => {
  let mne: Map<string, MneResult>;
  beforeAll(async () => {
    // One python start for all four files (MNE's import is slow).
    const results = await mneRead(EDF_FIXTURES.map(fixture));
    mne = new Map(results.map((r) => [r.path, r]));
  }, 120_000);

  it('reads the plain EDF with its one 9.6 s record and 25 signals at 128 Hz', () => {
    const r = EdfReader.open(fixture('test_edf_stim_channel.edf'));
    expect(r.kind).toEqual({ format: 'edf', variant: 'plain' });
    expect(r.recordCount).toBe(1);
    expect(r.header.recordDuration).toBe(9.59375);
    expect(r.signals).toHaveLength(25);
    expect(r.signals[0]).toMatchObject({ label: 'EEG Fp1', physicalDimension: 'uV', samplesPerRecord: 1228 });
    expect(r.signals[0]?.sampleRate).toBe(128);
    expect(r.startTime.toISOString()).toBe('2015-06-02T10:41:57.000Z');
    expect(r.readAnnotations()).toEqual([]);
    r.close();
  });

  it('reads the BioSemi BDF despite its right-aligned record count', () => {
    const r = EdfReader.open(fixture('biosemi_test.bdf'));
    expect(r.kind).toEqual({ format: 'bdf', variant: 'plain' });
    expect(r.header.version).toBe('BIOSEMI');
    expect(r.header.recordCountField).toBe(1);
    expect(r.signals).toHaveLength(73);
    expect(r.signals.map((s) => s.sampleRate)).toEqual(new Array(73).fill(2048));
    expect(r.signals[72]?.label).toBe('Status');
    r.close();
  });

  it('reads the EDF+C with a non-blank prefilter on its annotation signal, and its annotation', () => {
    const r = EdfReader.open(fixture('S002R01.edf'));
    expect(r.kind).toEqual({ format: 'edf', variant: 'continuous' });
    // The repository's copy keeps 4 of the 61 one-second records (test/fixtures/eeg/README.md).
    expect(r.recordCount).toBe(4);
    expect(r.signals).toHaveLength(64);
    expect(r.annotationSignals).toHaveLength(1);
    expect(r.signals[10]?.label).toBe('Cz..');
    expect(r.warnings.some((w) => w.includes('annotation signal'))).toBe(true);
    expect(r.readAnnotations()).toEqual([{ onset: 0, duration: 4, text: 'T0' }]);
    expect(Array.from(r.recordOnsets().subarray(0, 3))).toEqual([0, 1, 2]);
    r.close();
  });

  it('reads the small BDF: C3 C4 Cz Status at 500 Hz, 10 records', () => {
    const r = EdfReader.open(fixture('test_bdf_stim_channel.bdf'));
    expect(r.signals.map((s) => s.label)).toEqual(['C3', 'C4', 'Cz', 'Status']);
    expect(r.recordCount).toBe(10);
    expect(r.durationSeconds).toBe(10);
    r.close();
  });

  it.each(EDF_FIXTURES)('%s: every sample and annotation equals what MNE reads (1e-6 relative)', (name) => {
    const m = mne.get(fixture(name));
    expect(m?.ok).toBe(true);
    const r = EdfReader.open(fixture(name));
    expect(r.signals.map((s) => s.label)).toEqual(m?.chNames);
    expect(r.signals[0]?.sampleRate).toBe(m?.sfreq);
    r.signals.forEach((_, i) => {
      const mine = r.readSignal(i);
      const theirs = m?.data[i] ?? [];
      expect(mine.length).toBe(theirs.length);
      let bad = 0;
      for (let k = 0; k < mine.length; k++) if (!closeTo(mine[k] as number, theirs[k] as number)) bad++;
      expect(bad).toBe(0);
    });
    expect(r.readAnnotations().map((a) => [a.onset, a.duration ?? 0, a.text])).toEqual(
      m?.annotations.map((a) => [a.onset, a.duration, a.description]),
    );
    r.close();
  });

  it.each(['test_edf_stim_channel.edf', 'test_bdf_stim_channel.bdf'])(
    '%s: every sample equals what EDFlib reads',
    (name) => {
      const e = edflibCheck(fixture(name));
      expect(e.ok).toBe(true);
      const r = EdfReader.open(fixture(name));
      r.signals.forEach((_, i) => {
        const mine = r.readSignal(i);
        const theirs = e.signals[i]?.samples ?? [];
        expect(mine.length).toBe(theirs.length);
        expect(mine.every((v, k) => closeTo(v, theirs[k] as number, 1e-9))).toBe(true);
      });
      r.close();
    },
  );

  it.each(['biosemi_test.bdf', 'S002R01.edf'])('%s is refused by EDFlib but read by us', (name) => {
    expect(edflibCheck(fixture(name), { samples: false }).ok).toBe(false);
    const r = EdfReader.open(fixture(name));
    expect(r.readRecord(0)[0]?.length).toBeGreaterThan(0);
    r.close();
  });

  it('reads one record at a time: readRecord(i) is the i-th slice of readSignal', () => {
    const r = EdfReader.open(fixture('test_bdf_stim_channel.bdf'));
    const all = r.readSignal(2);
    const rec = r.readRecord(7)[2];
    expect(Array.from(rec ?? [])).toEqual(Array.from(all.subarray(7 * 500, 8 * 500)));
    expect(Array.from(r.readSignal(2, 7, 1))).toEqual(Array.from(rec ?? []));
    expect(() => r.readRecord(10)).toThrow(RangeError);
    r.close();
  });
});

describe('EdfReader tolerance and refusal', () => {
  const dir = scratchDir('edf-reader');
  const original = readFileSync(fixture('test_bdf_stim_channel.bdf'));
  const variant = (name: string, edit: (b: Buffer) => Buffer): string => {
    const path = join(dir, name);
    writeFileSync(path, edit(Buffer.from(original)));
    return path;
  };
  const put = (b: Buffer, at: number, text: string): Buffer => {
    b.write(text, at, 'latin1');
    return b;
  };

  it('uses the whole records the file holds when the count is -1', () => {
    const r = EdfReader.open(variant('minus1.bdf', (b) => put(b, 236, '-1      ')));
    expect(r.recordCount).toBe(10);
    expect(r.warnings.join()).toMatch(/-1/);
  });

  it('reads only whole records of a torn file whose count is too large', () => {
    const r = EdfReader.open(variant('torn.bdf', (b) => b.subarray(0, b.length - 100)));
    expect(r.recordCount).toBe(9);
    expect(r.warnings.join()).toMatch(/holds 9/);
  });

  it('accepts right-aligned numbers and a decimal comma', () => {
    const r = EdfReader.open(variant('aligned.bdf', (b) => put(put(b, 236, '      10'), 244, '     1,0')));
    expect(r.recordCount).toBe(10);
    expect(r.header.recordDuration).toBe(1);
  });

  const refusals: [string, (b: Buffer) => Buffer, RegExp][] = [
    ['empty.bdf', (b) => b.subarray(0, 0), /shorter than the 256-byte header/],
    ['short-header.bdf', (b) => b.subarray(0, 600), /shorter than the header of 4 signals/],
    ['version.bdf', (b) => put(b, 0, 'XYZ     '), /unknown version/],
    ['ns.bdf', (b) => put(b, 252, 'abcd'), /number of signals/],
    ['zero-ns.bdf', (b) => put(b, 252, '0   '), /number of signals is 0/],
    ['date.bdf', (b) => put(b, 168, '99.99.99'), /out of range/],
    ['duration.bdf', (b) => put(b, 244, 'one     '), /duration of a data record/],
    ['digital.bdf', (b) => put(b, 256 + 4 * (16 + 80 + 8 * 4), '-8388608'), /digital maximum -8388608/],
    ['samples.bdf', (b) => put(b, 256 + 4 * (16 + 80 + 8 * 5 + 80), '0       '), /0 samples per record/],
  ];
  it.each(refusals)('refuses %s with a clear validation error', (name, edit, message) => {
    const path = variant(name, edit);
    let error: unknown;
    try {
      EdfReader.open(path);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FormatError);
    expect((error as FormatError).message).toMatch(message);
    expect((error as FormatError).message).toContain(path);
  });
});

describe('EdfReader on EDF+D', () => {
  const dir = scratchDir('edf-d');
  it('reads record onsets with a gap from the time-keeping TALs', () => {
    const path = join(dir, 'gap.edf');
    const w = EdfWriter.open(path, {
      format: 'edf',
      sampleRate: 10,
      channels: [{ label: 'Cz', physicalMin: -100, physicalMax: 100 }],
      startTime: new Date('2026-11-21T10:00:00Z'),
    });
    w.annotate(5.5, 'after the gap');
    w.write(
      new Float32Array(30).map((_, i) => i),
      30,
    );
    w.close();
    // Make it EDF+D with record 2 starting at 5 s instead of 2 s (same TAL length).
    const bytes = readFileSync(path);
    bytes.write('EDF+D', 192, 'latin1');
    const tal = w.headerBytes + 2 * w.recordBytes + 10 * 2;
    expect(bytes.subarray(tal, tal + 5).toString('latin1')).toBe('+2\x14\x14\x00');
    bytes.write('+5', tal, 'latin1');
    writeFileSync(path, bytes);

    const r = EdfReader.open(path);
    expect(r.kind).toEqual({ format: 'edf', variant: 'discontinuous' });
    expect(Array.from(r.recordOnsets())).toEqual([0, 1, 5]);
    expect(r.readAnnotations()).toEqual([{ onset: 5.5, duration: undefined, text: 'after the gap' }]);
    expect(Array.from(r.readSignal(0).subarray(18, 22)).map(Math.round)).toEqual([18, 19, 20, 21]);
    r.close();
    // EDFlib refuses every EDF+D (EDFLIB_FILE_IS_DISCONTINUOUS): our reader is the only check here.
    const e = edflibCheck(path, { samples: false });
    expect(e.error).toBe(-10);
  });
});

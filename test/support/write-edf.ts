/** A minimal EDF writer for tests of the replay device: any labels, units, rates and records. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';

export interface TestSignal {
  label: string;
  unit?: string;
  samplesPerRecord: number;
  /** Physical value of sample k of the whole signal (k from 0 over all records). */
  value?: (k: number) => number;
  /** Raw bytes of record r instead of values (annotation signals). */
  bytes?: (record: number) => Buffer;
}

const field = (text: string, width: number): string => text.padEnd(width, ' ').slice(0, width);

/**
 * A minimal EDF writer: 16-bit, physical range ±3276.8 (0.1 units per count), `records` records
 * of `duration` s. `reserved` is the header's reserved field (`EDF+C`, `EDF+D`).
 */
export interface EdfOptions {
  records: number;
  duration?: number;
  reserved?: string;
  recordCountField?: number;
  extraBytes?: number;
}

export function writeTestEdf(dir: string, name: string, signals: TestSignal[], options: EdfOptions): string {
  const duration = options.duration ?? 1;
  const ns = signals.length;
  const header =
    field('0', 8) +
    field('X X X X', 80) +
    field('Startdate 01-JAN-2024 X X X', 80) +
    field('01.01.24', 8) +
    field('00.00.00', 8) +
    field(String(256 * (ns + 1)), 8) +
    field(options.reserved ?? '', 44) +
    field(String(options.recordCountField ?? options.records), 8) +
    field(String(duration), 8) +
    field(String(ns), 4) +
    signals.map((s) => field(s.label, 16)).join('') +
    signals.map(() => field('', 80)).join('') +
    signals.map((s) => field(s.unit ?? (s.bytes ? '' : 'uV'), 8)).join('') +
    signals.map((s) => field(s.bytes ? '-1' : '-3276.8', 8)).join('') +
    signals.map((s) => field(s.bytes ? '1' : '3276.7', 8)).join('') +
    signals.map(() => field('-32768', 8)).join('') +
    signals.map(() => field('32767', 8)).join('') +
    signals.map(() => field('', 80)).join('') +
    signals.map((s) => field(String(s.samplesPerRecord), 8)).join('') +
    signals.map(() => field('', 32)).join('');
  const parts = [Buffer.from(header, 'latin1')];
  for (let r = 0; r < options.records; r++) {
    for (const s of signals) {
      const block = Buffer.alloc(2 * s.samplesPerRecord);
      if (s.bytes) s.bytes(r).copy(block);
      else {
        for (let i = 0; i < s.samplesPerRecord; i++) {
          const physical = s.value?.(r * s.samplesPerRecord + i) ?? 0;
          block.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(physical * 10))), 2 * i);
        }
      }
      parts.push(block);
    }
  }
  parts.push(Buffer.alloc(options.extraBytes ?? 0, 7));
  const file = path.join(dir, name);
  writeFileSync(file, Buffer.concat(parts));
  return file;
}

/**
 * Samples on the wire, as liblsl's `sample::save_streambuf` (protocol 1.10) and its portable
 * archive (protocol 1.00) write them, for the numeric formats headsetd sends: float32 and double64,
 * little-endian (an inlet also reads int32 and int16 in protocol 1.10). Every sample carries its timestamp explicitly (tag 2): a deduced one (tag 1) would
 * shift every later stamp after a sample lost upstream.
 *
 * The two test-pattern samples that open every data connection: channel k holds k + base + offset
 * (offset 4, then 2), negated when k is odd, timestamp 123456.789; the base is 0 for float32,
 * 16777217 for double64, 65537 for int32 and 257 for int16. The inlet builds the same samples and refuses the connection on a mismatch.
 */
import type { NumericFormat, ReadableFormat } from './info.js';

export const TEST_PATTERN_TIMESTAMP = 123456.789;
const TAG_DEDUCED = 1;
const TAG_TRANSMITTED = 2;

const VALUE_SIZE: Readonly<Record<ReadableFormat, number>> = { float32: 4, double64: 8, int32: 4, int16: 2 };
const PATTERN_BASE: Readonly<Record<ReadableFormat, number>> = {
  float32: 0,
  double64: 16777217,
  int32: 65537,
  int16: 257,
};

export function valueSize(format: ReadableFormat): number {
  return VALUE_SIZE[format];
}

/** Bytes of one sample in protocol 1.10. */
export function sampleBytes110(format: NumericFormat, channels: number): number {
  return 1 + 8 + channels * valueSize(format);
}

/** The values of test pattern `offset` (4 or 2) for `channels` channels. */
export function testPatternValues(format: ReadableFormat, channels: number, offset: number): number[] {
  const base = PATTERN_BASE[format];
  return Array.from({ length: channels }, (_, k) => {
    const v = k + base + offset;
    return k % 2 === 1 ? -v : v;
  });
}

/** Writes one sample in protocol 1.10 at `at` of `out`; returns the offset after it. */
export function writeSample110(
  out: Buffer,
  at: number,
  format: NumericFormat,
  timestamp: number,
  values: ArrayLike<number>,
  from = 0,
  channels = values.length,
): number {
  let p = out.writeUInt8(TAG_TRANSMITTED, at);
  p = out.writeDoubleLE(timestamp, p);
  if (format === 'float32') {
    for (let c = 0; c < channels; c++) p = out.writeFloatLE(values[from + c] as number, p);
  } else {
    for (let c = 0; c < channels; c++) p = out.writeDoubleLE(values[from + c] as number, p);
  }
  return p;
}

/** The two test-pattern samples in protocol 1.10. */
export function testPatterns110(format: NumericFormat, channels: number): Buffer {
  const out = Buffer.alloc(2 * sampleBytes110(format, channels));
  const p = writeSample110(out, 0, format, TEST_PATTERN_TIMESTAMP, testPatternValues(format, channels, 4));
  writeSample110(out, p, format, TEST_PATTERN_TIMESTAMP, testPatternValues(format, channels, 2));
  return out;
}

// ---- protocol 1.00: boost portable archive ----

/**
 * A portable integer: 0 is one zero byte; otherwise a signed count n, then |n| little-endian
 * low-order bytes (n < 0 for a negative value, sign-extended on read).
 */
export function portableInt(value: bigint): Buffer {
  if (value === 0n) return Buffer.from([0]);
  const negative = value < 0n;
  const bytes: number[] = [];
  let v = value;
  const stop = negative ? -1n : 0n;
  do {
    bytes.push(Number(v & 0xffn));
    v >>= 8n;
  } while (v !== stop);
  // A positive value whose top byte has its high bit set needs no extra byte: the count's sign says it.
  const n = negative ? -bytes.length : bytes.length;
  return Buffer.from([n & 0xff, ...bytes]);
}

export function portableString(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([portableInt(BigInt(bytes.length)), bytes]);
}

/** The archive header (magic 127, archive version 9) and the short info, which opens a 1.00 feed. */
export function archiveHeader100(shortInfoXml: string): Buffer {
  return Buffer.concat([Buffer.from([127]), portableInt(9n), portableString(shortInfoXml)]);
}

const scratch = new DataView(new ArrayBuffer(8));

function floatBits(value: number): bigint {
  // Boost's portable archive writes NaN as all-ones exponent and mantissa.
  if (Number.isNaN(value)) return 0x7fffffffn;
  scratch.setFloat32(0, value, true);
  return BigInt(scratch.getUint32(0, true));
}

function doubleBits(value: number): bigint {
  if (Number.isNaN(value)) return 0x7fffffffffffffffn;
  scratch.setFloat64(0, value, true);
  return scratch.getBigUint64(0, true);
}

/** One sample in protocol 1.00; `first` adds the class marker the archive writes before its first sample. */
export function sample100(
  format: NumericFormat,
  timestamp: number,
  values: ArrayLike<number>,
  from: number,
  channels: number,
  first: boolean,
): Buffer {
  const parts: Buffer[] = [];
  if (first) parts.push(Buffer.from([0, 0]));
  parts.push(portableInt(BigInt(TAG_TRANSMITTED)), portableInt(doubleBits(timestamp)));
  for (let c = 0; c < channels; c++) {
    const v = values[from + c] as number;
    parts.push(portableInt(format === 'float32' ? floatBits(v) : doubleBits(v)));
  }
  return Buffer.concat(parts);
}

// ---- reading protocol 1.10 (the inlet) ----

/**
 * Reads samples of protocol 1.10 from a byte stream: `push` bytes as they come, `next` returns a
 * whole sample or undefined until enough bytes arrived. Deduced timestamps (tag 1) are the previous
 * one plus 1/rate, as liblsl's reader does.
 */
export class SampleReader110 {
  private buffer: Buffer = Buffer.alloc(0);
  private lastTimestamp = 0;

  constructor(
    private readonly format: ReadableFormat,
    private readonly channels: number,
    private readonly nominalSrate: number,
  ) {}

  push(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
  }

  next(): { timestamp: number; values: number[] } | undefined {
    const size = valueSize(this.format) * this.channels;
    if (this.buffer.length < 1) return undefined;
    const tag = this.buffer.readUInt8(0);
    if (tag !== TAG_DEDUCED && tag !== TAG_TRANSMITTED) {
      throw new Error(`malformed sample: tag ${tag}`);
    }
    const head = tag === TAG_TRANSMITTED ? 9 : 1;
    if (this.buffer.length < head + size) return undefined;
    let timestamp: number;
    if (tag === TAG_TRANSMITTED) timestamp = this.buffer.readDoubleLE(1);
    else timestamp = this.nominalSrate > 0 ? this.lastTimestamp + 1 / this.nominalSrate : this.lastTimestamp;
    this.lastTimestamp = timestamp;
    const values: number[] = [];
    const step = valueSize(this.format);
    for (let c = 0, p = head; c < this.channels; c++, p += step) {
      switch (this.format) {
        case 'float32':
          values.push(this.buffer.readFloatLE(p));
          break;
        case 'double64':
          values.push(this.buffer.readDoubleLE(p));
          break;
        case 'int32':
          values.push(this.buffer.readInt32LE(p));
          break;
        case 'int16':
          values.push(this.buffer.readInt16LE(p));
          break;
      }
    }
    this.buffer = this.buffer.subarray(head + size);
    return { timestamp, values };
  }
}

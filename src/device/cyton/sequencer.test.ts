import { describe, expect, test } from 'vitest';
import type { CytonPacket } from './protocol.js';
import { type SequencedRow, Sequencer, type SequencerOutput } from './sequencer.js';

const packet = (sampleNumber: number, value = sampleNumber): CytonPacket => ({
  sampleNumber: sampleNumber & 0xff,
  counts: Int32Array.from({ length: 8 }, (_, c) => value * 10 + c),
  aux: new Uint8Array(6),
  footer: 0xc0,
});
const rows = (out: SequencerOutput[]): SequencedRow[] =>
  out.flatMap((o) => (o.kind === 'row' ? [o.row] : []));

/** Feeds packets n = from..to (skipping `drop`) at 4 ms each. */
function feed(
  seq: Sequencer,
  from: number,
  to: number,
  drop: (n: number) => boolean = () => false,
): SequencerOutput[] {
  const out: SequencerOutput[] = [];
  for (let n = from; n <= to; n++) if (!drop(n)) out.push(...seq.push(packet(n), n * 4));
  return out;
}

describe('Sequencer (Cyton)', () => {
  test('one packet is one row; the counter wraps at 256 without a loss', () => {
    const seq = new Sequencer(false);
    const got = rows(feed(seq, 250, 262));
    expect(got.map((r) => r.index)).toEqual(Array.from({ length: 13 }, (_, i) => i));
    expect(got.every((r) => r.lostBefore === 0)).toBe(true);
    expect(seq.lostRows).toBe(0);
  });

  test('dropped packets are counted on the row after them, never filled', () => {
    const seq = new Sequencer(false);
    const got = rows(feed(seq, 0, 40, (n) => n >= 10 && n < 15));
    expect(got).toHaveLength(36);
    const after = got.find((r) => r.lostBefore > 0) as SequencedRow;
    expect(after.lostBefore).toBe(5);
    expect(after.counts[0]).toBe(150);
    expect(seq.lostRows).toBe(5);
  });

  test('a loss of more than 256 packets is counted from the arrival times', () => {
    const seq = new Sequencer(false);
    const got = rows(feed(seq, 0, 1000, (n) => n > 100 && n <= 700));
    expect(got.find((r) => r.lostBefore > 0)?.lostBefore).toBe(600);
  });

  test('a backlog of 2 s delivered at once (a stalled event loop) is not a loss', () => {
    const seq = new Sequencer(false);
    const out = feed(seq, 0, 50);
    // Packets 51..550 were produced on time but all arrive together at 2.2 s.
    for (let n = 51; n <= 550; n++) out.push(...seq.push(packet(n), 550 * 4 + 5, 550 - n));
    expect(rows(out)).toHaveLength(551);
    expect(seq.lostRows).toBe(0);
  });

  test('a backlog of 1.5 s read in several chunks (a loaded machine) is not a loss of 256', () => {
    const seq = new Sequencer(false);
    const out = feed(seq, 0, 50);
    // Packets 51..425 were produced on time; the port hands them over 124 at a time, 1 ms apart.
    const at = 425 * 4 + 5;
    for (let first = 51; first <= 425; first += 124) {
      const last = Math.min(425, first + 123);
      for (let n = first; n <= last; n++) out.push(...seq.push(packet(n), at + (first - 51) / 124, last - n));
    }
    expect(rows(out)).toHaveLength(426);
    expect(seq.lostRows).toBe(0);
  });

  test('a 1 s stall whose backlog then comes a few packets a read (the counter going on by 1) is not a loss of 256', () => {
    const seq = new Sequencer(false);
    const out = feed(seq, 0, 50);
    // Nothing arrives for 1.1 s (the source stalled); then packets 51..325, produced meanwhile and
    // since, come 5 per read, 1 ms apart, until they have caught up with the clock.
    const stallEnd = 50 * 4 + 1100;
    for (let first = 51; first <= 325; first += 5) {
      const at = stallEnd + (first - 51) / 5;
      for (let n = first; n < first + 5; n++) out.push(...seq.push(packet(n), at, first + 4 - n));
    }
    const got = rows(out);
    expect(got).toHaveLength(326);
    expect(got.map((r) => r.index)).toEqual(Array.from({ length: 326 }, (_, i) => i));
    expect(seq.lostRows).toBe(0);
  });

  test('packets held after a stall leave when the stream stops, none dropped', () => {
    const seq = new Sequencer(false);
    const out = feed(seq, 0, 50);
    // 1.1 s without packets, then 51..55 in one read: held, since nothing after them tells yet.
    const at = 50 * 4 + 1100;
    for (let n = 51; n <= 55; n++) out.push(...seq.push(packet(n), at, 55 - n));
    expect(rows(out)).toHaveLength(51);
    const drained = seq.drain();
    // Their own samples, in order (a packet's first count is ten times its number).
    expect(rows(drained).map((r) => r.counts[0])).toEqual([510, 520, 530, 540, 550]);
    expect(seq.drain()).toEqual([]);
  });

  test('a loss of exactly one turn (256 packets) is counted once the packets after it come at the board pace', () => {
    const seq = new Sequencer(false);
    // Packets 101..356 are lost: the counter shows no gap (357 ≡ 101 mod 256), only the time does.
    const out = feed(seq, 0, 600, (n) => n > 100 && n <= 356);
    const got = rows(out);
    expect(got.find((r) => r.lostBefore > 0)?.lostBefore).toBe(256);
    expect(got.map((r) => r.index)).toEqual([
      ...Array.from({ length: 101 }, (_, i) => i),
      ...Array.from({ length: 244 }, (_, i) => 357 + i),
    ]);
    expect(seq.lostRows).toBe(256);
  });

  test('a counter that jumps while no time passed is a restart, not a loss', () => {
    const seq = new Sequencer(false);
    const out = [...feed(seq, 0, 50)];
    for (let n = 0; n < 5; n++) out.push(...seq.push(packet(200 + n), 51 * 4 + n * 4));
    expect(out.some((o) => o.kind === 'restart')).toBe(true);
    expect(rows(out).every((r) => r.lostBefore === 0)).toBe(true);
  });
});

describe('Sequencer (Daisy)', () => {
  test('an odd packet and the even one after it make one 16-channel row', () => {
    const seq = new Sequencer(true);
    const got = rows(feed(seq, 0, 20));
    // Packet 0 (even, first) has no board half: dropped. Rows: (1,2), (3,4), ... (19,20).
    expect(got).toHaveLength(10);
    expect([...(got[0] as SequencedRow).counts]).toEqual([
      10, 11, 12, 13, 14, 15, 16, 17, 20, 21, 22, 23, 24, 25, 26, 27,
    ]);
    const first = (got[0] as SequencedRow).index;
    expect(got.map((r) => r.index - first)).toEqual(Array.from({ length: 10 }, (_, i) => i));
  });

  test('a row missing either half is lost, counted in rows', () => {
    const seq = new Sequencer(true);
    // Lose packet 6 (the Daisy half of row (5, 6)) and packets 9-12 (rows (9,10) and (11,12)).
    const got = rows(feed(seq, 1, 30, (n) => n === 6 || (n >= 9 && n <= 12)));
    const lost = got.filter((r) => r.lostBefore > 0).map((r) => r.lostBefore);
    expect(lost).toEqual([1, 2]);
    expect(seq.lostRows).toBe(3);
    expect(got).toHaveLength(15 - 3);
  });
});

/**
 * Packets to rows of samples, with lost packets counted from the sample number.
 *
 * The sample number is one byte: it counts packets modulo 256. The packets missing between two
 * received ones are (new - previous - 1) mod 256, plus 256 for every full turn of the counter the
 * gap lasted; the turns are read from the time between the two arrivals (a gap of about 256 packet
 * periods or more), which is the only thing that can tell them apart. Packets that arrive together
 * were waiting in a buffer (a stalled event loop, USB): the packets that came after this one in
 * the same delivery were produced after it, so their periods are taken off the gap; a backlog
 * delivered at once is therefore not mistaken for a loss. A backlog larger than one read comes in
 * several deliveries, the first of which would look like a gap of a whole turn: a delivery of 32
 * packets or more is a backlog, and its gap is not read as turns of the counter (a loss of 256
 * packets or more during a stall of the event loop is then undercounted by whole turns; the
 * counted rows stay exact). A backlog can also come in small reads (a source that stalled and then
 * sends what it owes, a link that drains a buffer at its own speed): the first packet after the
 * silence then looks like a turn of the counter although nothing was lost. So a gap read as turns
 * is not decided on that packet alone: it and the packets after it are held until the arrivals
 * tell (see {@link Sequencer.push}). Packets that keep arriving faster than real time, 32 or more
 * ahead of the clock, were the backlog of a late delivery: no turn was lost. Packets that arrive at
 * the board's pace for half a turn (0.512 s) show the gap was real time without packets: turns were
 * lost. The rows are late by at most that hold, and only after such a gap. A counter that jumps while the
 * arrival times say the stream went on without a pause (far fewer packets elapsed than the counter
 * claims) is a counter that restarted: the board reset. That is not counted as lost rows, it is
 * reported as a restart.
 *
 * Cyton: one packet is one row of 8 channels at 250 Hz.
 * Cyton + Daisy: odd sample numbers carry channels 1-8, even ones channels 9-16; an odd packet and
 * the even packet after it form one row of 16 channels at 125 Hz. A row missing either half is
 * lost, not filled: the half that arrived is dropped with it. The stream starts at the first odd
 * packet (an even packet first is the Daisy's half of a row whose board half was never sent).
 */
import { type CytonPacket, CHANNELS_PER_CHIP, PACKET_RATE } from './protocol.js';

/** Rows completed by one packet, with the rows lost just before them. */
export interface SequencedRow {
  /** The channels' counts, 8 or 16. */
  readonly counts: Int32Array;
  /** The row's index since the stream (re)started, counting lost rows. */
  readonly index: number;
  /** Rows lost just before this one. */
  readonly lostBefore: number;
}

export type SequencerOutput =
  | { readonly kind: 'row'; readonly row: SequencedRow }
  | { readonly kind: 'restart'; readonly message: string };

const PACKET_MS = 1000 / PACKET_RATE;
/** Packets in one delivery beyond which it is a backlog (0.128 s; a USB read carries a few). */
const BACKLOG_PACKETS = 32;
/**
 * Packet periods of arrivals at the board's pace after a gap read as turns, after which the gap is
 * taken for lost turns: half a turn (0.512 s), long enough for a backlog drained at a serial link's
 * speed (115 200 baud carries 1.4 times the board's rate) to have come 32 packets ahead.
 */
const CONFIRM_PERIODS = 128;

/** A packet as pushed, kept while a gap is being judged. */
interface Arrival {
  readonly packet: CytonPacket;
  readonly at: number;
  readonly after: number;
}

export class Sequencer {
  private lastPacket: { index: number; sampleNumber: number; at: number } | undefined;
  private pendingBoard: { row: number; counts: Int32Array } | undefined;
  private lastRow = -1;
  /** The packet after a gap read as turns and those that came after it, until the arrivals tell. */
  private held: Arrival[] | undefined;
  /** Rows lost since the stream started. */
  lostRows = 0;

  constructor(readonly daisy: boolean) {}

  get channelCount(): number {
    return this.daisy ? 2 * CHANNELS_PER_CHIP : CHANNELS_PER_CHIP;
  }

  /** Starts over: the next packet begins a new stream (after start, a reset, a reopened port). */
  restart(): void {
    this.lastPacket = undefined;
    this.pendingBoard = undefined;
    this.lastRow = -1;
    this.held = undefined;
  }

  /**
   * Feeds one packet that arrived at `at` (ms, this machine's clock) with `after` more packets in
   * the same delivery. Answers the rows it completes: none while packets are held after a gap
   * being judged, then all of them at once (a restart meanwhile drops them with the old stream).
   */
  push(packet: CytonPacket, at: number, after = 0): SequencerOutput[] {
    const out: SequencerOutput[] = [];
    const held = this.held;
    if (held === undefined) {
      this.place({ packet, at, after }, 'judge', out);
      return out;
    }
    held.push({ packet, at, after });
    const verdict = heldVerdict(held);
    if (verdict === undefined) return out;
    this.held = undefined;
    const [first, ...rest] = held as [Arrival, ...Arrival[]];
    this.place(first, verdict, out);
    // One of them may open a gap of its own: the rest then wait behind it.
    for (const arrival of rest) {
      // Read again each time: placing a packet may have opened a hold (TypeScript keeps the narrowing).
      const pending = this.held as Arrival[] | undefined;
      if (pending === undefined) this.place(arrival, 'judge', out);
      else pending.push(arrival);
    }
    return out;
  }

  /**
   * The packets held while a gap is judged, placed now with the gap read by the time alone, as
   * before any packet is held (the stream stops: no packet after them will tell): answers their
   * rows, so that a stop drops none of them.
   */
  drain(): SequencerOutput[] {
    const held = this.held;
    const out: SequencerOutput[] = [];
    if (held === undefined) return out;
    this.held = undefined;
    for (const arrival of held) this.place(arrival, 'lost', out);
    return out;
  }

  /**
   * Sequences one packet; `judge`: whether a gap the time reads as turns of the counter is judged
   * now (held when it is), taken as lost turns, or taken as a late delivery (no turn).
   */
  private place(arrival: Arrival, turns: 'judge' | 'lost' | 'late', out: SequencerOutput[]): void {
    const { packet, at, after } = arrival;
    const index = this.packetIndex(packet.sampleNumber, at, after, turns, out);
    if (index === undefined) {
      this.held = [arrival];
      return;
    }
    this.lastPacket = { index, sampleNumber: packet.sampleNumber, at };
    if (!this.daisy) {
      this.emit(index, packet.counts, out);
      return;
    }
    // Daisy: packet index p, odd p = board half of row (p - 1) / 2, even p = Daisy half of row p / 2 - 1.
    const odd = (packet.sampleNumber & 1) === 1;
    const row = odd ? (index - 1) / 2 : index / 2 - 1;
    if (odd) {
      this.pendingBoard = { row, counts: packet.counts };
      return;
    }
    const board = this.pendingBoard;
    this.pendingBoard = undefined;
    if (board === undefined || board.row !== row) return;
    const counts = new Int32Array(2 * CHANNELS_PER_CHIP);
    counts.set(board.counts, 0);
    counts.set(packet.counts, CHANNELS_PER_CHIP);
    this.emit(row, counts, out);
  }

  private emit(row: number, counts: Int32Array, out: SequencerOutput[]): void {
    const lostBefore = this.lastRow < 0 ? 0 : row - this.lastRow - 1;
    this.lostRows += lostBefore;
    this.lastRow = row;
    out.push({ kind: 'row', row: { counts, index: row, lostBefore } });
  }

  /**
   * The packet's index since the start (counting lost ones). The first packet's index is its sample
   * number when it has the parity of a board half (Daisy) so that the parity stays meaningful.
   * Undefined: the gap reads as turns of the counter and `judge` asks for it to be judged (held).
   */
  private packetIndex(
    sampleNumber: number,
    at: number,
    after: number,
    judge: 'judge' | 'lost' | 'late',
    out: SequencerOutput[],
  ): number | undefined {
    const last = this.lastPacket;
    if (last === undefined) return this.first(sampleNumber);
    const missing = (sampleNumber - last.sampleNumber - 1 + 256) % 256;
    const elapsed = Math.max(0, (at - last.at) / PACKET_MS - after);
    // Turns of the counter: the elapsed packets beyond what `missing` explains, in whole turns. A
    // delivery that is itself a backlog may be only the first read of it (the port hands over a
    // few KiB at a time), so its gap proves no turn: the rest of the backlog is still to come.
    const backlog = after >= BACKLOG_PACKETS;
    const turns = backlog || judge === 'late' ? 0 : Math.max(0, Math.round((elapsed - 1 - missing) / 256));
    if (turns > 0 && judge === 'judge') return undefined;
    const lost = missing + 256 * turns;
    // Arrivals come in bursts (USB latency): allow a generous slack before calling it a restart.
    const slack = 64 + elapsed * 0.5;
    if (lost > elapsed + slack) {
      out.push({
        kind: 'restart',
        message: `the sample counter jumped from ${last.sampleNumber} to ${sampleNumber} after ${Math.round(elapsed * PACKET_MS)} ms: the board restarted its count`,
      });
      this.restart();
      return this.first(sampleNumber);
    }
    return last.index + 1 + lost;
  }

  private first(sampleNumber: number): number {
    // Daisy: keep the parity of the sample number; the row arithmetic needs index >= 1 for odd.
    if (this.daisy) return (sampleNumber & 1) === 1 ? 1 : 2;
    return 0;
  }
}

/**
 * What the packets held after a gap read as turns show, or undefined while they show nothing yet:
 * `late` when they (with the rest of the last delivery) arrived {@link BACKLOG_PACKETS} or more
 * ahead of the board's pace (the backlog of a late delivery), `lost` once they have come at its
 * pace for {@link CONFIRM_PERIODS} (the gap was real time without packets).
 */
function heldVerdict(held: readonly Arrival[]): 'lost' | 'late' | undefined {
  const first = held[0] as Arrival;
  const last = held[held.length - 1] as Arrival;
  const periods = (last.at - first.at) / PACKET_MS;
  // Packets after the first: those pushed and those still to come in the last delivery.
  const ahead = held.length - 1 + last.after - periods;
  if (ahead >= BACKLOG_PACKETS) return 'late';
  return periods >= CONFIRM_PERIODS ? 'lost' : undefined;
}

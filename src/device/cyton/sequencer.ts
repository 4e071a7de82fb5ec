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
 * counted rows stay exact). A counter that jumps while the
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

export class Sequencer {
  private lastPacket: { index: number; sampleNumber: number; at: number } | undefined;
  private pendingBoard: { row: number; counts: Int32Array } | undefined;
  private lastRow = -1;
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
  }

  /**
   * Feeds one packet that arrived at `at` (ms, this machine's clock) with `after` more packets in
   * the same delivery.
   */
  push(packet: CytonPacket, at: number, after = 0): SequencerOutput[] {
    const out: SequencerOutput[] = [];
    const index = this.packetIndex(packet.sampleNumber, at, after, out);
    this.lastPacket = { index, sampleNumber: packet.sampleNumber, at };
    if (!this.daisy) {
      this.emit(index, packet.counts, out);
      return out;
    }
    // Daisy: packet index p, odd p = board half of row (p - 1) / 2, even p = Daisy half of row p / 2 - 1.
    const odd = (packet.sampleNumber & 1) === 1;
    const row = odd ? (index - 1) / 2 : index / 2 - 1;
    if (odd) {
      this.pendingBoard = { row, counts: packet.counts };
      return out;
    }
    const board = this.pendingBoard;
    this.pendingBoard = undefined;
    if (board === undefined || board.row !== row) return out;
    const counts = new Int32Array(2 * CHANNELS_PER_CHIP);
    counts.set(board.counts, 0);
    counts.set(packet.counts, CHANNELS_PER_CHIP);
    this.emit(row, counts, out);
    return out;
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
   */
  private packetIndex(sampleNumber: number, at: number, after: number, out: SequencerOutput[]): number {
    const last = this.lastPacket;
    if (last === undefined) return this.first(sampleNumber);
    const missing = (sampleNumber - last.sampleNumber - 1 + 256) % 256;
    const elapsed = Math.max(0, (at - last.at) / PACKET_MS - after);
    // Turns of the counter: the elapsed packets beyond what `missing` explains, in whole turns. A
    // delivery that is itself a backlog may be only the first read of it (the port hands over a
    // few KiB at a time), so its gap proves no turn: the rest of the backlog is still to come.
    const backlog = after >= BACKLOG_PACKETS;
    const turns = backlog ? 0 : Math.max(0, Math.round((elapsed - 1 - missing) / 256));
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

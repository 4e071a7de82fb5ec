/**
 * The main thread's side of one quick stream: the tap listener that receives its frames, the ring
 * buffer of the latest samples (/data), the WebSocket clients (/stream/{streamId}), the optional
 * forward to another headsetd, and the counters of the current run (/status).
 */
import type { Frame } from '../../core/frame.js';
import { frameJsonText, frameSamples } from '../../core/frame.js';
import type { QuickStreamConfig } from '../quick-stream.js';
import { QUICK_NODES } from '../quick-stream.js';
import type { StreamRuntime } from '../runtime/stream-runtime.js';
import { type ClientSocket, SocketFanout } from '../runtime/socket-fanout.js';
import type { ForwardSender } from './forward-sender.js';
import { SampleRing } from './sample-ring.js';

/** The data rate is measured over the frames that arrived in this last span (ms). */
const RATE_WINDOW_MS = 2000;
/** Bytes per value in the rate figure: samples are 32-bit floats from device to client. */
const BYTES_PER_VALUE = 4;

export interface DataRate {
  samplesPerSecond: number;
  bytesPerSecond: number;
}

export class QuickSession {
  readonly ring: SampleRing;
  readonly clients: SocketFanout;
  forward: ForwardSender | undefined;
  /** When the current (or last) run started and stopped, ms since the epoch. */
  startTime: number | undefined;
  stopTime: number | undefined;
  /** Sample rows received in the current run. */
  samples = 0;
  frames = 0;
  /** Channel names of the latest frame (the config's until one arrives). */
  channels: readonly string[];
  /** The ingest WebSockets connected now and the frames they brought. */
  ingestClients = 0;
  ingestFrames = 0;
  private readonly arrivals: { at: number; rows: number }[] = [];
  private readonly untap: () => void;

  constructor(
    readonly streamId: string,
    readonly config: QuickStreamConfig,
    runtime: Pick<StreamRuntime, 'tap'>,
    clientSendLimitBytes?: number,
  ) {
    this.ring = new SampleRing(config.bufferSize);
    this.clients = new SocketFanout({ limitBytes: clientSendLimitBytes });
    this.channels = config.channels;
    this.untap = runtime.tap(streamId, QUICK_NODES.tap, (frame) => {
      this.onFrame(frame);
    });
  }

  addClient(socket: ClientSocket): void {
    this.clients.add(socket);
  }

  /** A new run: the buffer and counters start from nothing. */
  beginRun(now = Date.now()): void {
    this.ring.clear();
    this.samples = 0;
    this.frames = 0;
    this.arrivals.length = 0;
    this.startTime = now;
    this.stopTime = undefined;
  }

  /** The run ended: clients are told (close 1001) and the forward ends; the buffer stays readable. */
  endRun(now = Date.now()): void {
    this.stopTime ??= now;
    this.clients.closeAll('The stream stopped.');
    this.forward?.close();
  }

  /** Seconds of the current run (up to its stop), 0 before any. */
  duration(now = Date.now()): number {
    if (this.startTime === undefined) return 0;
    return Math.max(0, ((this.stopTime ?? now) - this.startTime) / 1000);
  }

  dataRate(now = Date.now()): DataRate {
    this.forgetOld(now);
    if (this.stopTime !== undefined || this.arrivals.length === 0) {
      return { samplesPerSecond: 0, bytesPerSecond: 0 };
    }
    const rows = this.arrivals.reduce((sum, a) => sum + a.rows, 0);
    // Early in a run the window is shorter than RATE_WINDOW_MS.
    const span = Math.min(RATE_WINDOW_MS, now - (this.startTime ?? now));
    const samplesPerSecond = span > 0 ? (rows * 1000) / span : 0;
    return {
      samplesPerSecond: Math.round(samplesPerSecond * 10) / 10,
      bytesPerSecond: Math.round(samplesPerSecond * this.channels.length * BYTES_PER_VALUE),
    };
  }

  /** Ends everything: the tap listener, the clients, the forward. */
  dispose(reason: string): void {
    this.untap();
    this.clients.closeAll(reason);
    this.forward?.close();
  }

  private onFrame(frame: Frame): void {
    // A frame still in flight from the worker when the run ended is not part of it.
    if (this.stopTime !== undefined) return;
    const rows = frameSamples(frame);
    const now = Date.now();
    this.ring.push(frame);
    this.samples += rows;
    this.frames++;
    this.channels = frame.channels;
    this.arrivals.push({ at: now, rows });
    this.forgetOld(now);
    const forward = this.forward;
    if (this.clients.size === 0 && forward === undefined) return;
    // One text per frame, by the frame's one encoder, for the clients and the forward alike.
    let text: string | undefined;
    const encode = (): string => (text ??= frameJsonText(frame));
    this.clients.sendText(encode);
    forward?.send(encode());
  }

  private forgetOld(now: number): void {
    while (this.arrivals.length > 0 && (this.arrivals[0]?.at ?? now) < now - RATE_WINDOW_MS) {
      this.arrivals.shift();
    }
  }
}

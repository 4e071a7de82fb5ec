/**
 * The `osc` built-in: every sample of its input as Open Sound Control 1.0 over UDP (docs/builtins.md
 * §osc; the layout of the datagrams is osc-datagrams.ts). The stream never waits for the network:
 * each datagram is handed to the socket and forgotten; while more than {@link OSC_BACKLOG_BYTES}
 * are handed over and not yet sent (a slow interface), further datagrams are dropped and counted
 * instead of queued without bound. Counters in the node's status `metrics`: `datagramsSent`,
 * `datagramsDropped` (backlog over its bound), `sendErrors` (the system refused a datagram: no
 * route, a network down) and `oversizeMessages` (a message that alone exceeds `maxDatagramBytes`,
 * never sent). The first send error after a success is logged and raised as a warning.
 *
 * The destination is resolved once at start, so no sample waits for DNS, and must be on the
 * outbound allow-list (platform/security/outbound-hosts.ts), checked again here in case a stream was stored
 * under a wider list.
 */
import { lookup } from 'node:dns/promises';
import { createSocket, type Socket } from 'node:dgram';
import { LOOPBACK_ONLY } from '../../core/access-policy.js';
import type { Frame } from '../../core/frame.js';
import type { NodeContext, NodeFactory, NodeInstance } from '../../core/node.js';
import { NodeConfigError } from '../runtime/node-errors.js';
import { outboundHosts, outboundRefusal } from '../../platform/security/outbound-hosts.js';
import { type OscMode, OscPacker } from './osc-datagrams.js';
import { DEFAULT_OSC_ADDRESS, DEFAULT_OSC_DATAGRAM_BYTES, DEFAULT_OSC_HOST } from './osc-descriptor.js';

/** Bytes handed to the socket and not yet sent beyond which datagrams are dropped (about 1 s of 64 channels at 2 kHz in mode samples). */
export const OSC_BACKLOG_BYTES = 1024 * 1024;

export interface OscConfig {
  port: number;
  host?: string;
  address?: string;
  mode?: OscMode;
  bundle?: boolean;
  maxDatagramBytes?: number;
}

class OscOutput implements NodeInstance {
  private socket: Socket | undefined;
  private target = '';
  private readonly packer: OscPacker;
  private backlog = 0;
  private failing = false;

  constructor(
    private readonly context: NodeContext,
    private readonly config: OscConfig,
  ) {
    this.packer = new OscPacker({
      mode: config.mode ?? 'channels',
      address: config.address ?? DEFAULT_OSC_ADDRESS,
      bundle: config.bundle ?? true,
      maxDatagramBytes: config.maxDatagramBytes ?? DEFAULT_OSC_DATAGRAM_BYTES,
    });
  }

  async start(): Promise<void> {
    const host = this.config.host ?? DEFAULT_OSC_HOST;
    const allowed = (this.context.access ?? LOOPBACK_ONLY).outboundHosts ?? outboundHosts([]);
    const refusal = outboundRefusal(host, allowed, 'Sending OSC');
    if (refusal !== undefined) throw new NodeConfigError(refusal, 'host');
    let resolved: { address: string; family: number };
    try {
      // IPv4 first: most OSC receivers listen on an IPv4 socket, and `localhost` may list ::1 first.
      resolved = await lookup(host.replace(/^\[(.*)\]$/, '$1'), { order: 'ipv4first' });
    } catch {
      throw new NodeConfigError(`host ${host} cannot be resolved`, 'host');
    }
    this.target = resolved.address;
    const socket = createSocket(resolved.family === 6 ? 'udp6' : 'udp4');
    // An unconnected socket: a receiver that is not listening yet costs nothing and raises nothing.
    socket.on('error', (error) => {
      this.onSendError(error);
    });
    this.socket = socket;
    this.context.setInfo({
      host,
      address: resolved.address,
      port: this.config.port,
      mode: this.config.mode ?? 'channels',
      bundle: this.config.bundle ?? true,
      maxDatagramBytes: this.config.maxDatagramBytes ?? DEFAULT_OSC_DATAGRAM_BYTES,
    });
    this.context.log(`sending OSC to ${resolved.address}:${this.config.port} (${host})`);
    // Every counter shows from the start, a zero included: absent would read as "not counted".
    for (const name of ['datagramsSent', 'datagramsDropped', 'sendErrors', 'oversizeMessages']) {
      this.context.countMetric?.(name, 0);
    }
  }

  onFrame(_port: string, frame: Frame): void {
    const socket = this.socket;
    if (socket === undefined) return;
    const { datagrams, oversize } = this.packer.pack(frame);
    if (oversize > 0) this.context.countMetric?.('oversizeMessages', oversize);
    let dropped = 0;
    for (const datagram of datagrams) {
      if (this.backlog + datagram.length > OSC_BACKLOG_BYTES) {
        dropped++;
        continue;
      }
      this.backlog += datagram.length;
      socket.send(datagram, this.config.port, this.target, (error) => {
        this.backlog -= datagram.length;
        if (error === null) this.onSent();
        else this.onSendError(error);
      });
    }
    if (dropped > 0) this.context.countMetric?.('datagramsDropped', dropped);
  }

  private onSent(): void {
    this.context.countMetric?.('datagramsSent', 1);
    if (this.failing) {
      this.failing = false;
      this.context.log('datagrams are sent again');
    }
  }

  private onSendError(error: Error): void {
    this.context.countMetric?.('sendErrors', 1);
    if (this.failing) return;
    this.failing = true;
    const message = `OSC datagrams to ${this.target}:${this.config.port} are not sent: ${error.message}`;
    this.context.log(message);
    this.context.warn?.(message);
  }

  stop(): Promise<void> {
    const socket = this.socket;
    this.socket = undefined;
    if (socket === undefined) return Promise.resolve();
    return new Promise((resolve) => {
      socket.close(() => {
        resolve();
      });
    });
  }
}

export const createOscOutput: NodeFactory = (context) =>
  new OscOutput(context, context.config as unknown as OscConfig);

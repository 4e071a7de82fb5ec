/**
 * The `lsl-outlet` built-in: publishes its input frames as a Lab Streaming Layer stream
 * (docs/lsl.md), which LabRecorder, MNE-LSL, OpenViBE and every liblsl inlet can find and read.
 *
 * The outlet opens at the first frame, whose channels and rate it describes (channel labels,
 * units and types in the stream info's `desc`; a stream of derived quantities gets a type of its
 * own: ./lsl-channel-kinds.ts); a frame with other channels, units or another rate
 * reopens it (a new uid, the same source id, so that inlets recover). Each sample's timestamp is
 * its acquisition time on the LSL clock (lsl/clock.ts): frame timestamp + i / rate, mapped exactly.
 * The sockets stay on loopback unless the service opens LSL on named interfaces (docs/security.md).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Frame } from '../../core/frame.js';
import type { NodeContext, NodeFactory, NodeInstance } from '../../core/node.js';
import { unixMsToLsl } from '../../lsl/clock.js';
import type { NumericFormat } from '../../lsl/info.js';
import { interfaceAddresses, LOOPBACK_NETWORK, type LslNetwork } from '../../lsl/network.js';
import { LslOutlet } from '../../lsl/outlet.js';
import { lslDeclaration } from './lsl-channel-kinds.js';

export const DEFAULT_LSL_TYPE = 'EEG';
export const DEFAULT_LSL_UNIT = 'microvolts';
export const DEFAULT_MAX_BUFFERED_S = 60;

export interface LslOutletConfig {
  name?: string;
  type?: string;
  sourceId?: string;
  channelFormat?: NumericFormat;
  unit?: string;
  chunkSize?: number;
  maxBuffered?: number;
}

/** This machine, stably and without giving away its machine id: a hash of it (or of the host name). */
function machineTag(): string {
  let id = '';
  try {
    id = readFileSync('/etc/machine-id', 'utf8').trim();
  } catch {
    id = hostname();
  }
  return createHash('sha256').update(id).digest('hex').slice(0, 12);
}

/** The default source id: the same for the same headset, stream and node, so inlets recover after a restart. */
export function defaultSourceId(streamId: string, nodeId: string): string {
  return `headsetd-${machineTag()}-${streamId}-${nodeId}`;
}

export function lslNetworkOf(context: NodeContext): LslNetwork {
  return context.access?.lsl ?? LOOPBACK_NETWORK;
}

/** Fails a node's start when an opened interface is not one of the machine's. */
export function checkInterfaces(network: LslNetwork): void {
  if (network.interfaces.length === 0) return;
  try {
    interfaceAddresses(network.interfaces);
  } catch (error) {
    throw new Error(`cannot open LSL (the service's lsl.interfaces): ${(error as Error).message}`, {
      cause: error,
    });
  }
}

class LslOutletNode implements NodeInstance {
  private outlet: LslOutlet | undefined;
  private opening: Promise<void> | undefined;
  private shape = '';
  private readonly name: string;
  private readonly sourceId: string;

  constructor(
    private readonly context: NodeContext,
    private readonly config: LslOutletConfig,
  ) {
    this.name = config.name ?? context.streamName ?? context.streamId;
    this.sourceId = config.sourceId ?? defaultSourceId(context.streamId, context.nodeId);
  }

  async start(): Promise<void> {
    checkInterfaces(lslNetworkOf(this.context));
    this.context.setInfo({ name: this.name, sourceId: this.sourceId, consumers: 0, samplesDropped: 0 });
  }

  onFrame(_port: string, frame: Frame): void {
    const shape = `${frame.sampleRate}|${frame.channels.join('\u0000')}|${frame.units?.join('\u0000') ?? ''}`;
    if (shape !== this.shape) {
      this.shape = shape;
      const previous = this.outlet;
      this.outlet = undefined;
      this.opening = (async () => {
        await this.opening;
        await previous?.stop();
        await this.open(frame);
      })().catch((error: unknown) => {
        this.context.fail(error instanceof Error ? error : new Error(String(error)));
      });
      return;
    }
    this.publish(frame);
  }

  private async open(frame: Frame): Promise<void> {
    const { type, channels } = lslDeclaration(frame, this.config, {
      type: DEFAULT_LSL_TYPE,
      unit: DEFAULT_LSL_UNIT,
    });
    const outlet = new LslOutlet({
      name: this.name,
      type,
      sourceId: this.sourceId,
      channelFormat: this.config.channelFormat ?? 'float32',
      nominalSrate: frame.sampleRate,
      channels,
      descExtra: { manufacturer: 'headsetd' },
      chunkSize: this.config.chunkSize ?? 0,
      maxBufferedSamples: Math.max(
        1,
        Math.ceil((this.config.maxBuffered ?? DEFAULT_MAX_BUFFERED_S) * frame.sampleRate),
      ),
      network: lslNetworkOf(this.context),
    });
    outlet.onConsumers = (count) => {
      this.context.setInfo({ consumers: count, samplesDropped: outlet.stats().samplesDropped });
      this.context.log(`${count} LSL consumer(s)`);
    };
    await outlet.start();
    this.outlet = outlet;
    const info = outlet.streamInfo;
    this.context.setInfo({
      uid: outlet.uid,
      dataPort: info?.v4dataPort,
      servicePort: info?.v4servicePort,
      channels: frame.channels.length,
      sampleRate: frame.sampleRate,
    });
    this.context.log(
      `LSL outlet '${this.name}' (${type}, source ${this.sourceId}) on data port ${info?.v4dataPort}, service port ${info?.v4servicePort}`,
    );
  }

  private publish(frame: Frame): void {
    const outlet = this.outlet;
    if (outlet === undefined) return;
    const channels = frame.channels.length;
    const count = channels === 0 ? 0 : frame.data.length / channels;
    const timestamps = new Float64Array(count);
    const stepMs = 1000 / frame.sampleRate;
    for (let i = 0; i < count; i++) timestamps[i] = unixMsToLsl(frame.timestamp + i * stepMs);
    const before = outlet.stats().samplesDropped;
    outlet.push(frame.data, timestamps);
    const after = outlet.stats().samplesDropped;
    if (after !== before) this.context.setInfo({ samplesDropped: after });
  }

  async stop(): Promise<void> {
    this.shape = '';
    // An outlet still opening is stopped once open.
    await this.opening;
    const outlet = this.outlet;
    this.outlet = undefined;
    await outlet?.stop();
  }
}

export const createLslOutlet: NodeFactory = (context) => new LslOutletNode(context, context.config);

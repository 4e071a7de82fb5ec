/**
 * An LSL outlet as liblsl's inlets expect it: UDP discovery answers on the discovery port (shared
 * with the machine's other LSL outlets, discovery.ts), a UDP service socket for unicast queries and time
 * probes, and a TCP server for the full info and the data feeds (protocol 1.10, and 1.00 for old
 * inlets), each consumer with its own bounded queue (consumer.ts).
 */
import { randomUUID } from 'node:crypto';
import dgram from 'node:dgram';
import { createServer, type Server, type Socket } from 'node:net';
import { hostname } from 'node:os';
import { lslNow } from './clock.js';
import {
  archiveHeader100,
  sample100,
  sampleBytes110,
  testPatternValues,
  testPatterns110,
  TEST_PATTERN_TIMESTAMP,
  valueSize,
  writeSample110,
} from './codec.js';
import { Consumer } from './consumer.js';
import { fromThisMachine, openResponders, relayQuery } from './discovery.js';
import {
  describeChannels,
  infoXml,
  type ChannelDescription,
  type NumericFormat,
  type StreamInfo,
} from './info.js';
import {
  allowedPeer,
  bindUdpInRange,
  type InterfaceAddress,
  interfaceAddresses,
  listenInRange,
  type LslNetwork,
} from './network.js';
import { QueryMatcher } from './query.js';

export const PROTOCOL_VERSION = 110;
/** liblsl's longest request line; a peer sending more is cut off. */
const MAX_REQUEST_BYTES = 16 * 1024;
/** A data connection that has not sent its request by then is closed. */
const REQUEST_TIMEOUT_MS = 10_000;
/** Most connections served at once (data feeds and info requests together). */
export const MAX_CONNECTIONS = 64;

export interface OutletOptions {
  name: string;
  type: string;
  sourceId: string;
  channelFormat: NumericFormat;
  nominalSrate: number;
  channels: readonly ChannelDescription[];
  /** Extra elements of `desc` (manufacturer, …), text only. */
  descExtra?: Readonly<Record<string, string>>;
  /** Samples per write at most (0: a frame per write). */
  chunkSize: number;
  /** Samples a consumer may have queued at most, whatever it asks for. */
  maxBufferedSamples: number;
  network: LslNetwork;
}

export interface OutletStats {
  consumers: number;
  samplesDropped: number;
}

export class LslOutlet {
  readonly uid = randomUUID();
  private readonly createdAt = lslNow();
  private info: StreamInfo | undefined;
  private shortXml = '';
  private fullXml = '';
  private matcher: QueryMatcher | undefined;
  private readonly tcpServers: Server[] = [];
  private readonly udpSockets: dgram.Socket[] = [];
  private readonly consumers = new Set<Consumer>();
  private readonly connections = new Set<Socket>();
  private opened: InterfaceAddress[] = [];
  private droppedByClosed = 0;
  /** Called when the set of consumers changes. */
  onConsumers?: (count: number) => void;

  constructor(private readonly options: OutletOptions) {}

  /** The stream info as served (after start: with the ports). */
  get streamInfo(): StreamInfo | undefined {
    return this.info;
  }

  get fullInfoXml(): string {
    return this.fullXml;
  }

  stats(): OutletStats {
    let dropped = this.droppedByClosed;
    for (const consumer of this.consumers) dropped += consumer.dropped;
    return { consumers: this.consumers.size, samplesDropped: dropped };
  }

  async start(): Promise<void> {
    const { network } = this.options;
    this.opened = interfaceAddresses(network.interfaces);
    const wide = this.opened.length > 0;
    // Beyond loopback the sockets take every address, and answer only peers of the opened networks.
    const host = wide ? '0.0.0.0' : '127.0.0.1';
    const tcp = createServer((socket) => {
      this.onConnection(socket);
    });
    tcp.maxConnections = MAX_CONNECTIONS;
    const dataPort = await listenInRange(tcp, host, network.basePort, network.portRange);
    this.tcpServers.push(tcp);
    const service = await bindUdpInRange(host, network.basePort, network.portRange);
    this.udpSockets.push(service);
    service.on('message', (message, remote) => {
      this.onDatagram(service, message, remote, true);
    });
    service.on('error', () => undefined);
    const servicePort = service.address().port;

    this.info = {
      name: this.options.name,
      type: this.options.type,
      channelCount: this.options.channels.length,
      channelFormat: this.options.channelFormat,
      sourceId: this.options.sourceId,
      nominalSrate: this.options.nominalSrate,
      version: PROTOCOL_VERSION,
      createdAt: this.createdAt,
      uid: this.uid,
      sessionId: network.sessionId,
      hostname: hostname(),
      v4address: '',
      v4dataPort: dataPort,
      v4servicePort: servicePort,
      v6address: '',
      v6dataPort: 0,
      v6servicePort: 0,
      descXml: describeChannels(this.options.channels, this.options.descExtra),
    };
    this.shortXml = infoXml(this.info, false);
    this.fullXml = infoXml(this.info, true);
    this.matcher = new QueryMatcher(this.fullXml);

    for (const responder of await openResponders(network, this.opened)) {
      responder.on('message', (message, remote) => {
        this.onDatagram(responder, message, remote, false);
      });
      this.udpSockets.push(responder);
    }
  }

  /** A discovery query or a time probe. */
  private onDatagram(
    socket: dgram.Socket,
    message: Buffer,
    remote: dgram.RemoteInfo,
    service: boolean,
  ): void {
    if (!allowedPeer(remote.address, this.opened) || message.length > MAX_REQUEST_BYTES) return;
    const lines = message
      .toString('utf8')
      .split('\n')
      .map((line) => line.trim());
    const method = lines[0];
    if (method === 'LSL:shortinfo') {
      const query = lines[1] ?? '';
      const [portText, queryId] = (lines[2] ?? '').split(/\s+/);
      const returnPort = Number(portText);
      if (!Number.isInteger(returnPort) || returnPort <= 0 || returnPort > 65535 || queryId === undefined)
        return;
      // A query to the shared port from this machine reached this outlet only: the others hear it from us.
      if (!service && fromThisMachine(remote) && this.info !== undefined)
        relayQuery(socket, message, this.options.network, this.info.v4servicePort);
      if (this.matcher?.matches(query) !== true) return;
      socket.send(`${queryId}\r\n${this.shortXml}`, returnPort, remote.address);
    } else if (method === 'LSL:timedata' && service) {
      const t1 = lslNow();
      const [waveId, t0] = (lines[1] ?? '').split(/\s+/);
      if (waveId === undefined || t0 === undefined || !/^-?\d+$/.test(waveId) || Number.isNaN(Number(t0)))
        return;
      socket.send(` ${waveId} ${t0} ${t1} ${lslNow()}`, remote.port, remote.address);
    }
  }

  private onConnection(socket: Socket): void {
    const local = socket.localAddress ?? '';
    const remote = socket.remoteAddress ?? '';
    const localOpened = allowedPeer(local, []) || this.opened.some((entry) => local.endsWith(entry.address));
    if (!localOpened || !allowedPeer(remote, this.opened)) {
      socket.destroy();
      return;
    }
    this.connections.add(socket);
    socket.setNoDelay(true);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.connections.delete(socket);
    });
    const timer = setTimeout(() => socket.destroy(), REQUEST_TIMEOUT_MS);
    timer.unref();
    let received = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const request = this.parseRequest(received);
      if (request === 'incomplete') {
        if (received.length > MAX_REQUEST_BYTES) socket.destroy();
        return;
      }
      socket.off('data', onData);
      clearTimeout(timer);
      if (request === undefined) socket.destroy();
      else this.serve(socket, request);
    };
    socket.on('data', onData);
  }

  /** The request in the bytes so far, 'incomplete' until all of it arrived, undefined for nonsense. */
  private parseRequest(bytes: Buffer): Request | 'incomplete' | undefined {
    const text = bytes.toString('latin1');
    const firstEnd = text.indexOf('\n');
    if (firstEnd < 0) return 'incomplete';
    const method = text.slice(0, firstEnd).trim();
    const rest = text.slice(firstEnd + 1);
    if (method === 'LSL:fullinfo') return { kind: 'fullinfo' };
    if (method === 'LSL:shortinfo') {
      const end = rest.indexOf('\n');
      return end < 0 ? 'incomplete' : { kind: 'shortinfo', query: rest.slice(0, end).trim() };
    }
    if (method === 'LSL:streamfeed') {
      const end = rest.indexOf('\n');
      if (end < 0) return 'incomplete';
      const [maxBuffered, maxChunk] = rest.slice(0, end).trim().split(/\s+/).map(Number);
      return {
        kind: 'feed',
        version: 100,
        uid: '',
        maxBuffered: maxBuffered ?? 0,
        maxChunk: maxChunk ?? 0,
        headers: new Map(),
      };
    }
    if (method.startsWith('LSL:streamfeed/')) {
      const end = rest.search(/\r?\n\r?\n|^\r?\n/);
      if (end < 0) return 'incomplete';
      const [versionPart, uid] = method.split(/\s+/);
      const version = Number.parseInt((versionPart ?? '').slice('LSL:streamfeed/'.length), 10);
      if (!Number.isFinite(version)) return undefined;
      const headers = new Map<string, string>();
      for (const raw of rest.slice(0, end).split('\n')) {
        let line = raw;
        const colon = line.indexOf(':');
        if (colon < 0) continue;
        const semicolon = line.indexOf(';');
        if (semicolon >= 0) line = line.slice(0, semicolon);
        line = line.toLowerCase();
        headers.set(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      }
      const int = (key: string) => Number.parseInt(headers.get(key) ?? '0', 10) || 0;
      return {
        kind: 'feed',
        version,
        uid: uid ?? '',
        maxBuffered: int('max-buffer-length'),
        maxChunk: int('max-chunk-length'),
        headers,
      };
    }
    return undefined;
  }

  private serve(socket: Socket, request: Request): void {
    if (request.kind === 'fullinfo') {
      socket.end(this.fullXml);
      return;
    }
    if (request.kind === 'shortinfo') {
      if (this.matcher?.matches(request.query) === true) socket.end(this.shortXml);
      else socket.end();
      return;
    }
    const format = this.options.channelFormat;
    const channels = this.options.channels.length;
    let protocol: 100 | 110 = 100;
    if (request.version >= 110) {
      if (Math.floor(request.version / 100) > Math.floor(PROTOCOL_VERSION / 100)) {
        socket.end(`LSL/${PROTOCOL_VERSION} 505 Version not supported`);
        return;
      }
      if (request.uid !== '' && request.uid !== this.uid) {
        socket.end(`LSL/${PROTOCOL_VERSION} 404 Not found`);
        return;
      }
      const asked = request.headers.get('protocol-version') ?? String(request.version);
      protocol = Math.min(PROTOCOL_VERSION, Number.parseInt(asked, 10) || request.version) >= 110 ? 110 : 100;
      const size = request.headers.get('value-size');
      if (size !== undefined && Number(size) !== valueSize(format)) protocol = 100;
      const ieee = request.headers.get('has-ieee754-floats');
      if (ieee !== undefined && ieee !== '1') protocol = 100;
      socket.write(
        `LSL/${PROTOCOL_VERSION} 200 OK\r\nUID: ${this.uid}\r\nByte-Order: 1234\r\nSuppress-Subnormals: 0\r\nData-Protocol-Version: ${protocol}\r\n\r\n`,
      );
    }
    if (protocol === 110) {
      socket.write(testPatterns110(format, channels));
    } else {
      socket.write(
        Buffer.concat([
          archiveHeader100(this.shortXml),
          sample100(
            format,
            TEST_PATTERN_TIMESTAMP,
            testPatternValues(format, channels, 4),
            0,
            channels,
            true,
          ),
          sample100(
            format,
            TEST_PATTERN_TIMESTAMP,
            testPatternValues(format, channels, 2),
            0,
            channels,
            false,
          ),
        ]),
      );
    }
    if (request.maxBuffered <= 0) return;
    const capacity = Math.max(1, Math.min(request.maxBuffered, this.options.maxBufferedSamples));
    const chunk = request.maxChunk > 0 ? request.maxChunk : this.options.chunkSize;
    const consumer = new Consumer(socket, capacity, chunk, protocol);
    this.consumers.add(consumer);
    this.onConsumers?.(this.consumers.size);
    socket.on('close', () => {
      if (!this.consumers.delete(consumer)) return;
      this.droppedByClosed += consumer.dropped;
      consumer.close();
      this.onConsumers?.(this.consumers.size);
    });
  }

  /**
   * Publishes samples: `data` row-major (`channels` values per sample), `timestamps` one per sample
   * on the LSL clock, s. Each consumer gets them in its own queue.
   */
  push(data: ArrayLike<number>, timestamps: ArrayLike<number>): void {
    if (this.consumers.size === 0) return;
    const format = this.options.channelFormat;
    const channels = this.options.channels.length;
    const count = timestamps.length;
    let encoded110: Buffer[] | undefined;
    let encoded100: Buffer[] | undefined;
    for (const consumer of this.consumers) {
      if (consumer.protocol === 110) {
        if (encoded110 === undefined) {
          const size = sampleBytes110(format, channels);
          const block = Buffer.allocUnsafe(size * count);
          encoded110 = [];
          for (let i = 0; i < count; i++) {
            writeSample110(block, i * size, format, timestamps[i] as number, data, i * channels, channels);
            encoded110.push(block.subarray(i * size, (i + 1) * size));
          }
        }
        consumer.push(encoded110);
      } else {
        encoded100 ??= Array.from({ length: count }, (_, i) =>
          sample100(format, timestamps[i] as number, data, i * channels, channels, false),
        );
        consumer.push(encoded100);
      }
    }
  }

  async stop(): Promise<void> {
    for (const consumer of this.consumers) consumer.close();
    this.consumers.clear();
    for (const socket of this.connections) socket.destroy();
    this.connections.clear();
    await Promise.all(
      this.tcpServers.map(
        (server) =>
          new Promise<void>((resolve) =>
            server.close(() => {
              resolve();
            }),
          ),
      ),
    );
    this.tcpServers.length = 0;
    await Promise.all(
      this.udpSockets.map(
        (socket) =>
          new Promise<void>((resolve) => {
            try {
              socket.close(() => {
                resolve();
              });
            } catch {
              resolve();
            }
          }),
      ),
    );
    this.udpSockets.length = 0;
  }
}

type Request =
  | { kind: 'fullinfo' }
  | { kind: 'shortinfo'; query: string }
  | {
      kind: 'feed';
      version: number;
      uid: string;
      maxBuffered: number;
      maxChunk: number;
      headers: Map<string, string>;
    };

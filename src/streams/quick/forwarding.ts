/**
 * Between headsetds (docs/api.md §Quick EEG streams): a quick stream's frames forwarded to another
 * headsetd's ingest WebSocket (only to hosts of the allow-list), and frames received on this one's
 * ingest WebSocket fed into an `ingest` node of a running stream (a quick stream started with
 * `source: "ingest"`, or any stream with an ingest node). The routes of
 * api/quick-streams/forward-routes.ts parse, call one method here and shape the answer.
 */
import type { NodeDef } from '../../core/stream-model.js';
import { isUuid } from '../../core/uuid.js';
import { HeadsetdError } from '../../core/errors.js';
import type { ClientSocket } from '../runtime/socket-fanout.js';
import type { StreamRuntime } from '../runtime/stream-runtime.js';
import type { StreamEntry, StreamManager } from '../manager.js';
import {
  CLOSE,
  closeReason,
  type IngestExpectation,
  mismatch,
  parseIngestMessage,
} from './ingest-message.js';
import { ForwardSender, type ForwardStatus } from './forward-sender.js';
import { isActive, type QuickRegistry } from './registry.js';
import { normalHost, outboundHosts, outboundRefusal } from '../../platform/security/outbound-hosts.js';

export interface ForwardRequest {
  target: { host: string; port: number; streamId: string; token?: string };
  format?: 'json';
  metadata?: { includeChannelMetadata?: boolean };
}

export interface ForwardAnswer {
  streamId: string;
  pipe: ForwardStatus;
}

export interface QuickForwardingOptions {
  /**
   * Hosts a forward may go to (names or addresses, case-insensitive; IPv6 without brackets): the
   * service's outbound allow-list (platform/security/outbound-hosts.ts). Default: loopback only.
   */
  allowedHosts?: readonly string[];
  /** The token sent as `?token=` to a forward's target when the request names none. */
  token?: string;
}

/** A socket that also hears messages (a `ws` WebSocket). */
export type IngestSocket = ClientSocket & {
  on(event: 'message', listener: (data: Buffer, isBinary: boolean) => void): unknown;
};

/** The ingest node a socket is to feed, and what its frames must match. */
export interface IngestTarget {
  entry: StreamEntry;
  node: NodeDef;
  expected: IngestExpectation;
}

/** The ingest node a socket feeds: the one named by `wanted`, else the stream's only one. */
function ingestNode(entry: StreamEntry, wanted: string | undefined): NodeDef {
  const nodes = entry.definition.nodes.filter((n) => n.executable === 'ingest');
  if (wanted !== undefined) {
    const node = nodes.find((n) => n.id === wanted);
    if (node === undefined) {
      throw new HeadsetdError(
        'node_not_found',
        `Stream ${entry.definition.id} has no ingest node '${wanted}'.`,
        {
          nodeId: wanted,
        },
      );
    }
    return node;
  }
  const [only, ...others] = nodes;
  if (only === undefined) {
    throw new HeadsetdError(
      'node_not_found',
      `Stream ${entry.definition.id} has no ingest node to take frames; start one with POST /stream/start {"source":"ingest"} or add a node with executable "ingest".`,
    );
  }
  if (others.length > 0) {
    throw new HeadsetdError(
      'invalid_request',
      `Stream ${entry.definition.id} has several ingest nodes; name one with ?node= (${nodes.map((n) => n.id).join(', ')}).`,
      { path: '/querystring/node', allowed: nodes.map((n) => n.id) },
    );
  }
  return only;
}

function mustRun(entry: StreamEntry, what: string): void {
  if (entry.state !== 'running') {
    throw new HeadsetdError('invalid_state', `The stream is ${entry.state}; ${what} needs it running.`, {
      state: entry.state,
      signal: what,
      allowed: entry.state === 'paused' ? ['resume'] : ['start'],
    });
  }
}

export class QuickForwarding {
  private readonly allowed: readonly string[];

  constructor(
    private readonly registry: QuickRegistry,
    private readonly manager: Pick<StreamManager, 'get'>,
    private readonly runtime: Pick<StreamRuntime, 'feed'>,
    private readonly options: QuickForwardingOptions = {},
  ) {
    this.allowed = options.allowedHosts ?? outboundHosts([]);
  }

  /**
   * Forwards a quick stream's frames to `request.target` (replacing its forward, if any): 403
   * forbidden_origin for a host off the allow-list, 422 for a target stream id that is no UUID,
   * 409 invalid_state for a stream that is not active.
   */
  start(streamId: string, request: ForwardRequest): ForwardAnswer {
    const { entry, session } = this.registry.resolve(streamId);
    const { target, metadata } = request;
    const host = normalHost(target.host);
    const refusal = outboundRefusal(target.host, this.allowed, 'Piping');
    if (refusal !== undefined) {
      throw new HeadsetdError('forbidden_origin', `${refusal}.`, {
        path: '/target/host',
        host,
        allowed: [...this.allowed],
      });
    }
    if (!isUuid(target.streamId)) {
      throw new HeadsetdError('validation_failed', `target.streamId '${target.streamId}' is not a UUID.`, {
        path: '/target/streamId',
      });
    }
    if (!isActive(entry.state)) mustRun(entry, 'pipe');
    const token = target.token ?? this.options.token;
    session.forward?.close();
    session.forward = new ForwardSender({
      target: { host, port: target.port, streamId: target.streamId.toLowerCase() },
      ...(token === undefined ? {} : { token }),
      ...(metadata?.includeChannelMetadata === true
        ? {
            metadata: {
              sourceStreamId: entry.definition.id,
              sampleRate: session.config.sampleRate,
              channels: session.channels.map((name) => ({ name, type: 'EEG', unit: 'uV' })),
            },
          }
        : {}),
    });
    return { streamId: entry.definition.id, pipe: session.forward.status() };
  }

  /** Ends a quick stream's forward (404 forward_not_found when it has none); answers its last status. */
  stop(streamId: string): ForwardAnswer {
    const { entry, session } = this.registry.resolve(streamId);
    const forward = session.forward;
    if (forward === undefined) {
      throw new HeadsetdError(
        'forward_not_found',
        `Stream ${entry.definition.id} forwards to no other headsetd (POST /stream/${entry.definition.id}/pipe starts a forward).`,
      );
    }
    forward.close();
    session.forward = undefined;
    return { streamId: entry.definition.id, pipe: forward.status() };
  }

  /**
   * Refuses an ingest socket before it is accepted: 404 for an unknown stream or node, 400 when
   * several nodes could be meant, 409 when the stream is not running.
   */
  checkIngest(streamId: string, node: string | undefined): void {
    const { entry } = this.ingestTarget(streamId, node);
    mustRun(entry, 'ingest');
  }

  /** The ingest node frames sent to a stream go to (the one named by `node`, else its only one). */
  ingestTarget(streamId: string, node: string | undefined): IngestTarget {
    const entry = this.manager.get(streamId);
    const found = ingestNode(entry, node);
    const config = found.config ?? {};
    const expected: IngestExpectation = {
      ...(typeof config.sampleRate === 'number' ? { sampleRate: config.sampleRate } : {}),
      ...(Array.isArray(config.channels) ? { channels: config.channels as string[] } : {}),
    };
    return { entry, node: found, expected };
  }

  /**
   * Feeds each JSON frame of `socket` into the target's ingest node until the socket closes; a
   * refused message closes it (1003 binary, 1007 malformed, 1008 not matching or stream stopped)
   * with the reason, naming the message by its number.
   */
  serveIngest(socket: IngestSocket, target: IngestTarget): void {
    const { entry, expected } = target;
    const nodeId = target.node.id;
    const streamId = entry.definition.id;
    const session = this.registry.sessionOf(entry);
    if (session !== undefined) session.ingestClients++;
    let open = true;
    let received = 0;
    const end = (code: number, reason: string): void => {
      if (!open) return;
      open = false;
      socket.close(code, closeReason(reason));
    };
    socket.on('close', () => {
      open = false;
      if (session !== undefined) session.ingestClients--;
    });
    socket.on('message', (data, isBinary) => {
      if (!open) return;
      received++;
      if (isBinary) {
        end(
          CLOSE.unsupportedData,
          `message ${received}: binary messages are not accepted; send frames as JSON text`,
        );
        return;
      }
      const parsed = parseIngestMessage(data.toString('utf8'));
      if (!parsed.ok) {
        end(parsed.code, `message ${received}: ${parsed.reason}`);
        return;
      }
      const wrong = mismatch(parsed.frame, expected);
      if (wrong !== undefined) {
        end(CLOSE.policyViolation, `message ${received}: ${wrong}`);
        return;
      }
      if (!this.runtime.feed(streamId, nodeId, parsed.frame)) {
        end(CLOSE.policyViolation, `stream ${streamId} is not running; frames cannot be ingested`);
        return;
      }
      if (session !== undefined) session.ingestFrames++;
    });
  }
}

/**
 * The settings of the rules every socket applies (platform/security/access.ts, docs/security.md). Plain
 * data, so the main thread hands it to a stream's worker thread as is, and a node's context carries
 * it to the sockets the node opens.
 */
export interface AccessPolicy {
  /** Required when set: `Authorization: Bearer <token>`, or `?token=` on a WebSocket upgrade. */
  readonly token: string | undefined;
  /**
   * The file the token lives in (`<data-dir>/token`). When set, the token required is the file's
   * content at each request, so that `headsetd token rotate` takes effect in a running service and
   * its workers at once; `token` is then only the value used while the file cannot be read.
   */
  readonly tokenFile?: string;
  /** Origins allowed besides the socket's own (`http://host:port`). */
  readonly allowedOrigins: readonly string[];
  /**
   * The API's port, once it listens. The pages the service serves there (the dashboard) have the
   * origin `http://<a name of this device>:<servicePort>`: a websocket node's port admits them as
   * its own, so that the dashboard can show a node's frames without `--allow-origin`.
   */
  readonly servicePort?: number;
  /** Host names allowed besides loopback names, the listening addresses and the machine's name. */
  readonly allowedHosts: readonly string[];
  /**
   * The machine's own host name, as its administrator set it (`<name>.local` is accepted too);
   * never the name clients set through `PATCH /system/hostname`, which would let any client widen
   * who may call. Undefined or empty: none.
   */
  readonly hostname: string | undefined;
  /**
   * The addresses the socket listens on (`--host`, a websocket node's `host`), accepted as `Host`;
   * a wildcard (`0.0.0.0`, `::`) stands for every address of the machine's interfaces.
   */
  readonly listenAddresses?: readonly string[];
  /**
   * Where Lab Streaming Layer outlets and inlets open (lsl/network.ts, docs/lsl.md); absent:
   * loopback only, liblsl's default ports and session.
   */
  readonly lsl?: LslSettings;
  /**
   * The hosts a node may send data to (an `osc` node's destination): the service's one outbound
   * allow-list, loopback and `--pipe-allow-host` (platform/security/outbound-hosts.ts, docs/security.md).
   * Absent: loopback only.
   */
  readonly outboundHosts?: readonly string[];
}

/** The service's LSL settings (`lsl` in the settings file; liblsl's names in parentheses). */
export interface LslSettings {
  /** Network interfaces opened besides loopback (none by default). */
  readonly interfaces: readonly string[];
  /** `session_id` of the streams published, and the one inlets look for (lab.SessionID). */
  readonly sessionId: string;
  /** Hosts inlets query directly, besides discovery on the opened networks (lab.KnownPeers). */
  readonly knownPeers: readonly string[];
  /** Discovery port (ports.MulticastPort). */
  readonly multicastPort: number;
  /** First port of the range outlets take theirs from (ports.BasePort). */
  readonly basePort: number;
  /** Ports in that range (ports.PortRange). */
  readonly portRange: number;
}

/** The policy of a socket whose service said nothing: loopback names and its own origin only. */
export const LOOPBACK_ONLY: AccessPolicy = {
  token: undefined,
  allowedOrigins: [],
  allowedHosts: [],
  hostname: undefined,
};

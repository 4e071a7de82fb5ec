/**
 * The settings of the rules every socket applies (security/access.ts, docs/security.md). Plain
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
  /** Host names allowed besides loopback names and the device's host name. */
  readonly allowedHosts: readonly string[];
  /** The device's host name (`<name>.local` is accepted too); undefined: loopback names only. */
  readonly hostname: string | undefined;
}

/** The policy of a socket whose service said nothing: loopback names and its own origin only. */
export const LOOPBACK_ONLY: AccessPolicy = {
  token: undefined,
  allowedOrigins: [],
  allowedHosts: [],
  hostname: undefined,
};

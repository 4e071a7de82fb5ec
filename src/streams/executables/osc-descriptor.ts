/**
 * The `osc` built-in as the control plane sees it: Open Sound Control 1.0 over UDP
 * (docs/builtins.md §osc). The destination must be on the service's outbound allow-list
 * (platform/security/outbound-hosts.ts): checked here when a stream is made or edited on a running service,
 * and again by the node when it starts.
 */
import { Type } from 'typebox';
import { outboundRefusal } from '../../platform/security/outbound-hosts.js';
import { type BuiltinDescriptor, COMMON_CONFIG } from './builtin-descriptor.js';

export const DEFAULT_OSC_HOST = '127.0.0.1';
export const DEFAULT_OSC_ADDRESS = '/headsetd';
/**
 * A datagram's default bound, bytes: an Ethernet frame (1500) less the IPv4/IPv6 and UDP headers
 * with room to spare, so that no datagram is fragmented on a LAN, and small enough for receivers
 * that read into a small buffer.
 */
export const DEFAULT_OSC_DATAGRAM_BYTES = 1400;
/** The largest UDP payload over IPv4 (65535 − 8 − 20). */
export const MAX_OSC_DATAGRAM_BYTES = 65507;
/** Room for a bundle, a sample's inner bundle and one message of a one-part address and a float. */
export const MIN_OSC_DATAGRAM_BYTES = 128;

/**
 * An OSC address: one or more parts, each `/` and printable ASCII characters other than space and
 * `# * , / ? [ ] { }` (OSC 1.0 reserves them for patterns).
 */
const ADDRESS_PATTERN = '^(/[!"$%&\'()+\\-.0-9:;<=>@A-Z\\\\^_`a-z|~]+)+$';

export const osc: BuiltinDescriptor = {
  name: 'osc',
  aliases: [],
  role: 'sink',
  inputs: ['in'],
  outputs: [],
  description:
    'Sends every sample as Open Sound Control 1.0 messages over UDP, in bundles time-tagged with the samples’ times.',
  configSchema: Type.Object(
    {
      ...COMMON_CONFIG,
      port: Type.Integer({ minimum: 1, maximum: 65535, description: 'UDP port of the receiver.' }),
      host: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 255,
          default: DEFAULT_OSC_HOST,
          description:
            'Receiver: an address or a host name (resolved once, when the node starts). Loopback (127.0.0.1, ::1, localhost) or a host the operator allowed with --pipe-allow-host; any other is refused (403 forbidden_origin).',
        }),
      ),
      address: Type.Optional(
        Type.String({
          minLength: 2,
          maxLength: 200,
          pattern: ADDRESS_PATTERN,
          default: DEFAULT_OSC_ADDRESS,
          description:
            'OSC address: in mode channels the prefix of each channel’s address, in mode samples the address of every message. Parts of printable ASCII without space or # * , ? [ ] { }.',
        }),
      ),
      mode: Type.Optional(
        Type.Enum(['channels', 'samples'], {
          default: 'channels',
          description:
            'channels: one message per channel and sample, at `<address>/<channel>` with one float (a dot in a channel’s name starts a new part: O1.alpha → <address>/O1/alpha); samples: one message per sample at `<address>`, one float per channel in the frame’s order.',
        }),
      ),
      bundle: Type.Optional(
        Type.Boolean({
          default: true,
          description:
            'true: each sample’s messages are in a bundle whose time tag is the sample’s time (NTP); false: bundles tagged “immediately”.',
        }),
      ),
      maxDatagramBytes: Type.Optional(
        Type.Integer({
          minimum: MIN_OSC_DATAGRAM_BYTES,
          maximum: MAX_OSC_DATAGRAM_BYTES,
          default: DEFAULT_OSC_DATAGRAM_BYTES,
          description:
            'Largest datagram sent, bytes: frames are split over datagrams of at most this size (1400 fits a LAN’s MTU; up to 65507 for a loopback receiver that reads large datagrams).',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  check(config, { outboundHosts }) {
    const host = (config.host as string | undefined) ?? DEFAULT_OSC_HOST;
    // Offline (headsetd validate) no allow-list is known; the node checks again when it starts.
    if (outboundHosts === undefined) return [];
    const refusal = outboundRefusal(host, outboundHosts, 'Sending OSC');
    return refusal === undefined ? [] : [{ path: '/host', message: refusal, code: 'forbidden_origin' }];
  },
};

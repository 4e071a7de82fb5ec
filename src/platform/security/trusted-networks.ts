/**
 * Client networks trusted without the token (`--trust-network`, docs/security.md §The maker's SDK
 * on a network): for clients that cannot send one, such as the maker's SDK. Named explicitly by the
 * device's owner, as CIDR blocks; empty by default.
 *
 * A block that covers too much is refused unless the owner also says `--trust-network-any`: the
 * owner meant a lab's network, and `0.0.0.0/0` (or `::/80`, which holds every IPv4 client through
 * the v4-mapped addresses `::ffff:a.b.c.d` a dual-stack socket reports) would waive the token for
 * everyone who can reach the device. What a block covers is judged as the matching below matches
 * it: an IPv6 block that reaches into `::ffff:0:0/96` trusts the IPv4 addresses it holds there.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { HeadsetdError } from '../../core/errors.js';

export interface TrustedNetworks {
  /** Whether a request from `address` (as the socket reports it) comes from a trusted network. */
  includes(address: string | undefined): boolean;
}

/** The shortest IPv4 prefix trusted without `--trust-network-any`: a /8 holds 2^24 addresses. */
export const MIN_IPV4_PREFIX = 8;
/** The shortest IPv6 prefix trusted without `--trust-network-any` (a site is a /48, a LAN a /64). */
export const MIN_IPV6_PREFIX = 16;

/** Where the list came from, for the messages: `--trust-network` unless told. */
export interface TrustedNetworksOptions {
  /** `--trust-network-any`: blocks of any breadth are trusted (the service warns of it). */
  readonly any?: boolean;
  /** How the person gave the setting (`--trust-network`, `HEADSETD_TRUST_NETWORK`, a settings file). */
  readonly source?: string;
}

interface Block {
  readonly address: string;
  readonly prefix: number;
  readonly family: 'ipv4' | 'ipv6';
}

const NONE: TrustedNetworks = { includes: () => false };
const MAPPED = new BlockList();
MAPPED.addSubnet('::ffff:0:0', 96, 'ipv6');

/** `192.168.1.0/24`, `10.0.0.7` (one host) or `fd00::/16`; undefined when it is none of these. */
function parseBlock(text: string): Block | undefined {
  const [address = '', prefixText, ...rest] = text.trim().split('/');
  const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : undefined;
  if (family === undefined || rest.length > 0) return undefined;
  const max = family === 'ipv4' ? 32 : 128;
  const prefix =
    prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
  return prefix >= 0 && prefix <= max ? { address, prefix, family } : undefined;
}

/**
 * The IPv4 prefix length a block trusts (0: every IPv4 address), or undefined when it trusts no
 * IPv4 address. An IPv6 block of length up to 96 that holds `::ffff:0:0` holds all of
 * `::ffff:0:0/96`; a longer one inside it is an IPv4 block of its length minus 96.
 */
function ipv4Reach(block: Block): number | undefined {
  if (block.family === 'ipv4') return block.prefix;
  if (block.prefix <= 96) {
    const list = new BlockList();
    list.addSubnet(block.address, block.prefix, 'ipv6');
    return list.check('::ffff:0:0', 'ipv6') ? 0 : undefined;
  }
  return MAPPED.check(block.address, 'ipv6') ? block.prefix - 96 : undefined;
}

/** Why a block is too broad to trust without `--trust-network-any`, or undefined when it is not. */
export function tooBroad(text: string): string | undefined {
  const block = parseBlock(text);
  if (block === undefined) return undefined;
  if (block.family === 'ipv6' && block.prefix === 0) return 'covers every address, IPv4 and IPv6';
  const v4 = ipv4Reach(block);
  if (v4 === 0) return 'covers every IPv4 address';
  if (v4 !== undefined && v4 < MIN_IPV4_PREFIX) {
    return `covers 1/${2 ** v4} of all IPv4 addresses (an IPv4 block must be /${MIN_IPV4_PREFIX} or narrower)`;
  }
  if (block.family === 'ipv6' && block.prefix < MIN_IPV6_PREFIX) {
    return `covers 1/${2 ** block.prefix} of all IPv6 addresses (an IPv6 block must be /${MIN_IPV6_PREFIX} or narrower)`;
  }
  return undefined;
}

/**
 * Parses the blocks; throws naming the setting and the value for a malformed one, and for one
 * {@link tooBroad} unless `options.any`.
 */
export function trustedNetworks(
  blocks: readonly string[],
  options: TrustedNetworksOptions = {},
): TrustedNetworks {
  if (blocks.length === 0) return NONE;
  const source = options.source ?? '--trust-network';
  const list = new BlockList();
  for (const text of blocks) {
    const block = parseBlock(text);
    if (block === undefined) {
      throw new HeadsetdError(
        'invalid_request',
        `${source} ${JSON.stringify(text)} is not a network: give an address and prefix length such as 192.168.1.0/24.`,
        { setting: 'trustedNetworks', value: text },
      );
    }
    const breadth = options.any === true ? undefined : tooBroad(text);
    if (breadth !== undefined) {
      throw new HeadsetdError(
        'invalid_request',
        `${source} ${JSON.stringify(text)} ${breadth}: every client there could use the device without the token. Name the lab's own network (such as 192.168.1.0/24 or fd12:3456:789a::/48), or add --trust-network-any to trust it anyway.`,
        { setting: 'trustedNetworks', value: text },
      );
    }
    list.addSubnet(block.address, block.prefix, block.family);
  }
  return {
    includes(address) {
      if (address === undefined) return false;
      const v4 = address.startsWith('::ffff:') && isIPv4(address.slice(7)) ? address.slice(7) : undefined;
      if (v4 !== undefined) return list.check(v4, 'ipv4');
      return isIPv4(address) ? list.check(address, 'ipv4') : isIPv6(address) && list.check(address, 'ipv6');
    },
  };
}

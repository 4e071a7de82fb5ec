/**
 * Client networks trusted without the token (`--trust-network`, docs/security.md §The maker's SDK
 * on a network): for clients that cannot send one, such as the maker's SDK. Named explicitly by the
 * device's owner, as CIDR blocks; empty by default.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { HeadsetdError } from '../errors/catalog.js';

export interface TrustedNetworks {
  /** Whether a request from `address` (as the socket reports it) comes from a trusted network. */
  includes(address: string | undefined): boolean;
}

const NONE: TrustedNetworks = { includes: () => false };

/** Parses `192.168.1.0/24`, `10.0.0.7` (one host) or `fd00::/8`; throws naming a malformed one. */
export function trustedNetworks(blocks: readonly string[]): TrustedNetworks {
  if (blocks.length === 0) return NONE;
  const list = new BlockList();
  for (const block of blocks) {
    const [address = '', prefixText, ...rest] = block.trim().split('/');
    const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : undefined;
    const max = family === 'ipv4' ? 32 : 128;
    const prefix =
      prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
    if (family === undefined || rest.length > 0 || !(prefix >= 0 && prefix <= max)) {
      throw new HeadsetdError(
        'invalid_request',
        `--trust-network ${JSON.stringify(block)} is not a network: give an address and prefix length such as 192.168.1.0/24.`,
        { setting: 'trustedNetworks', value: block },
      );
    }
    list.addSubnet(address, prefix, family);
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

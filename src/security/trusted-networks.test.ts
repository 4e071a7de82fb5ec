import { describe, expect, test } from 'vitest';
import { trustedNetworks } from './trusted-networks.js';

describe('trusted networks', () => {
  test('none by default: no address is trusted', () => {
    expect(trustedNetworks([]).includes('192.168.1.5')).toBe(false);
  });

  test('a CIDR block trusts its addresses only, IPv4-mapped IPv6 included', () => {
    const trusted = trustedNetworks(['192.168.1.0/24', 'fd00::/8']);
    expect(trusted.includes('192.168.1.77')).toBe(true);
    expect(trusted.includes('::ffff:192.168.1.77')).toBe(true);
    expect(trusted.includes('192.168.2.1')).toBe(false);
    expect(trusted.includes('fd12::1')).toBe(true);
    expect(trusted.includes(undefined)).toBe(false);
  });

  test('a bare address is one host', () => {
    const trusted = trustedNetworks(['10.0.0.7']);
    expect(trusted.includes('10.0.0.7')).toBe(true);
    expect(trusted.includes('10.0.0.8')).toBe(false);
  });

  test.each(['192.168.1.0/33', 'lab', '10.0.0.0/8/1', '10.0.0.0/x', ''])(
    '%j is refused, naming it',
    (block) => {
      expect(() => trustedNetworks([block])).toThrow(/is not a network/);
    },
  );
});

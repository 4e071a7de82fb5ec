import { describe, expect, test } from 'vitest';
import { trustedNetworks } from './trusted-networks.js';

describe('trusted networks', () => {
  test('none by default: no address is trusted', () => {
    expect(trustedNetworks([]).includes('192.168.1.5')).toBe(false);
  });

  test('a CIDR block trusts its addresses only, IPv4-mapped IPv6 included', () => {
    const trusted = trustedNetworks(['192.168.1.0/24', 'fd12::/16']);
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

  // Regression: each of these was accepted, and a tokenless request from any peer was then served.
  test.each([
    ['0.0.0.0/0', /covers every IPv4 address/],
    ['0.0.0.0/1', /covers 1\/2 of all IPv4 addresses/],
    ['128.0.0.0/7', /covers 1\/128 of all IPv4 addresses/],
    ['::/0', /covers every address, IPv4 and IPv6/],
    ['::/80', /covers every IPv4 address/],
    ['::ffff:0:0/96', /covers every IPv4 address/],
    ['::/16', /covers every IPv4 address/],
    ['::ffff:0:0/100', /covers 1\/16 of all IPv4 addresses/],
    ['2000::/3', /covers 1\/8 of all IPv6 addresses/],
    ['fd00::/8', /covers 1\/256 of all IPv6 addresses/],
  ])('%s is refused as too broad, naming the flag and the value', (block, why) => {
    let message = '';
    try {
      trustedNetworks(['192.168.1.0/24', block]);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(why);
    expect(message).toContain(`--trust-network ${JSON.stringify(block)}`);
    expect(message).toContain('--trust-network-any');
  });

  test('what these blocks refuse is what they would have trusted: every IPv4 client, mapped or not', () => {
    for (const block of ['0.0.0.0/0', '::/80', '::ffff:0:0/96']) {
      const trusted = trustedNetworks([block], { any: true });
      expect(trusted.includes('203.0.113.9'), block).toBe(true);
      expect(trusted.includes('::ffff:203.0.113.9'), block).toBe(true);
    }
  });

  test('the narrowest refused and the broadest accepted blocks of each family', () => {
    expect(() =>
      trustedNetworks(['10.0.0.0/8', 'fd12::/16', '::ffff:10.0.0.0/104', '64:ff9b::/96']),
    ).not.toThrow();
    expect(() => trustedNetworks(['11.0.0.0/7'])).toThrow(/1\/128 of all IPv4/);
    expect(() => trustedNetworks(['fd00::/15'])).toThrow(/1\/32768 of all IPv6/);
    expect(() => trustedNetworks(['::ffff:10.0.0.0/103'])).toThrow(/1\/128 of all IPv4/);
    // An IPv6 block beside the mapped range holds no IPv4 address.
    expect(trustedNetworks(['::/96']).includes('203.0.113.9')).toBe(false);
  });

  test('--trust-network-any trusts any block; the message names where the setting was given', () => {
    expect(trustedNetworks(['0.0.0.0/0', '::/0'], { any: true }).includes('2001:db8::1')).toBe(true);
    expect(() => trustedNetworks(['0.0.0.0/0'], { source: 'HEADSETD_TRUST_NETWORK' })).toThrow(
      /^HEADSETD_TRUST_NETWORK "0\.0\.0\.0\/0" covers every IPv4 address/,
    );
  });
});

/**
 * accessRefusal, the one set of rules every socket of headsetd applies: Host, Origin,
 * Sec-Fetch-Site (regression: cross-site GETs without Origin, such as an <img> loading
 * /system/sensors/impedance/all, were answered and acted), and the token.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { AccessPolicy } from '../../core/access-policy.js';
import { accessRefusal, sameToken } from './access.js';
import { rotateToken, tokenPath } from './token.js';
import { httpStatus } from '../http/statuses.js';
import { scratchDir } from '../../../test/support/scratch.js';

const POLICY: AccessPolicy = {
  token: undefined,
  allowedOrigins: ['http://app.example'],
  allowedHosts: ['Headset.Example'],
  hostname: 'Headset',
};

function refusal(headers: Record<string, string>, policy: AccessPolicy = POLICY, url = '/') {
  return accessRefusal({ headers: { host: '127.0.0.1:42069', ...headers }, url, port: 42069 }, policy);
}

describe('accessRefusal', () => {
  it.each([
    ['loopback', {}],
    ['localhost', { host: 'localhost:42069' }],
    ['IPv6 loopback', { host: '[::1]:42069' }],
    ["the machine's name, any case", { host: 'HEADSET:42069' }],
    ["the machine's .local name", { host: 'headset.local' }],
    ['an --allow-host, any case', { host: 'headset.example:1' }],
    ['its own origin', { origin: 'http://127.0.0.1:42069' }],
    [
      'its own origin by the Host it names',
      { host: 'headset.local:42069', origin: 'http://headset.local:42069' },
    ],
    ['an --allow-origin', { origin: 'http://app.example' }],
    ['an --allow-origin from another site', { origin: 'http://app.example', 'sec-fetch-site': 'cross-site' }],
    ['same-origin', { 'sec-fetch-site': 'same-origin' }],
    ['typed into the address bar', { 'sec-fetch-site': 'none' }],
  ])('lets pass %s', (_what, headers) => {
    expect(refusal(headers)).toBeUndefined();
  });

  it.each([
    ['a foreign Host', { host: 'evil.example:42069' }, { host: 'evil.example' }],
    ['no Host', { host: '' }, { host: '' }],
    ['a foreign Origin', { origin: 'http://evil.example' }, { origin: 'http://evil.example' }],
    ['Origin null', { origin: 'null' }, { origin: 'null' }],
    [
      'an own origin on another port',
      { origin: 'http://127.0.0.1:8080' },
      { origin: 'http://127.0.0.1:8080' },
    ],
    [
      'a cross-site request without Origin',
      { 'sec-fetch-site': 'cross-site' },
      { secFetchSite: 'cross-site' },
    ],
    ['a same-site request without Origin', { 'sec-fetch-site': 'Same-Site' }, { secFetchSite: 'same-site' }],
  ])('refuses %s with 403 forbidden_origin', (_what, headers, details) => {
    const error = refusal(headers);
    expect(error?.code).toBe('forbidden_origin');
    expect(error && httpStatus(error)).toBe(403);
    expect(error?.details).toEqual(details);
  });

  it('with a token, requires it as a bearer header, or as ?token= on a WebSocket upgrade only', () => {
    const policy = { ...POLICY, token: 'secret-secret-secret-secret-secret' };
    expect(refusal({}, policy)?.code).toBe('authentication_required');
    expect(refusal({ authorization: 'Bearer wrong' }, policy)?.code).toBe('authentication_required');
    expect(refusal({ authorization: `Bearer ${policy.token}` }, policy)).toBeUndefined();
    expect(refusal({}, policy, `/x?token=${policy.token}`)?.code).toBe('authentication_required');
    expect(refusal({ upgrade: 'websocket' }, policy, `/x?a=1&token=${policy.token}`)).toBeUndefined();
    expect(refusal({ upgrade: 'websocket' }, policy, '/x?token=nope')?.code).toBe('authentication_required');
    // Host and Origin are checked first: a foreign page learns nothing about the token.
    expect(refusal({ origin: 'http://evil.example' }, policy)?.code).toBe('forbidden_origin');
  });

  it('without a device name, only loopback names are this device', () => {
    const policy = { ...POLICY, hostname: undefined };
    expect(refusal({ host: 'headset.local' }, policy)?.code).toBe('forbidden_origin');
    expect(refusal({ host: '.local' }, policy)?.code).toBe('forbidden_origin');
  });

  it('accepts the address the socket listens on as Host, as a browser writes it (it was refused unless --allow-host repeated it)', () => {
    const policy: AccessPolicy = { ...POLICY, listenAddresses: ['10.1.2.3', '::ffff:127.0.0.1'] };
    expect(refusal({ host: '10.1.2.3:42069' }, policy)).toBeUndefined();
    expect(refusal({ host: '[::ffff:127.0.0.1]:42069' }, policy)).toBeUndefined();
    expect(refusal({ host: '[::ffff:7f00:1]:42069' }, policy)).toBeUndefined();
    expect(refusal({ host: '10.1.2.4:42069' }, policy)?.details).toEqual({ host: '10.1.2.4' });
    expect(refusal({ host: '10.1.2.3.nip.io' }, policy)?.code).toBe('forbidden_origin');
  });

  it('on a wildcard, accepts every address of the machine and no other', () => {
    const policy: AccessPolicy = { ...POLICY, listenAddresses: ['0.0.0.0'] };
    const own = Object.values(networkInterfaces())
      .flatMap((entries) => entries ?? [])
      .filter((entry) => entry.family === 'IPv4' && !entry.internal)
      .map((entry) => entry.address);
    for (const address of own) expect(refusal({ host: `${address}:42069` }, policy), address).toBeUndefined();
    expect(refusal({ host: '203.0.113.77:42069' }, policy)?.code).toBe('forbidden_origin');
    expect(refusal({ host: 'evil.example:42069' }, policy)?.code).toBe('forbidden_origin');
  });

  it('compares tokens through fixed-length digests, so timing tells nothing of the length', () => {
    expect(sameToken('a'.repeat(43), 'a'.repeat(43))).toBe(true);
    expect(sameToken('a'.repeat(43), 'a'.repeat(42))).toBe(false);
    expect(sameToken('', 'a'.repeat(43))).toBe(false);
    expect(sameToken('a'.repeat(43), `${'a'.repeat(42)}b`)).toBe(false);
  });

  it('with a token file, requires what the file holds now: a rotated token replaces the old one', () => {
    const dataDir = scratchDir('headsetd-token');
    try {
      const first = rotateToken(dataDir);
      const policy: AccessPolicy = { ...POLICY, token: first, tokenFile: tokenPath(dataDir) };
      expect(refusal({ authorization: `Bearer ${first}` }, policy)).toBeUndefined();
      const second = rotateToken(dataDir);
      expect(refusal({ authorization: `Bearer ${first}` }, policy)?.code).toBe('authentication_required');
      expect(refusal({ authorization: `Bearer ${second}` }, policy)).toBeUndefined();
      // Content that is no token (too short), or a deleted file, never opens the socket: the last
      // token read stays in force.
      writeFileSync(tokenPath(dataDir), 'short\n');
      expect(refusal({ authorization: 'Bearer short' }, policy)?.code).toBe('authentication_required');
      expect(refusal({ authorization: `Bearer ${second}` }, policy)).toBeUndefined();
      rmSync(tokenPath(dataDir));
      expect(refusal({}, policy)?.code).toBe('authentication_required');
      expect(refusal({ authorization: `Bearer ${second}` }, policy)).toBeUndefined();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("the service's own origin on a websocket node's port", () => {
  /** A node's port (42100) under the service's rules, the API on 42069. */
  function nodeRefusal(origin: string, policy: AccessPolicy = { ...POLICY, servicePort: 42069 }) {
    return accessRefusal({ headers: { host: '127.0.0.1:42100', origin }, url: '/', port: 42100 }, policy);
  }

  it.each([
    'http://127.0.0.1:42069',
    'http://localhost:42069',
    'http://[::1]:42069',
    'http://headset.local:42069',
    'http://headset.example:42069',
  ])('admits the dashboard served at %s', (origin) => {
    expect(nodeRefusal(origin)).toBeUndefined();
  });

  it.each([
    ['another port of this device', 'http://127.0.0.1:8080'],
    ['a foreign name on the service port', 'http://evil.example:42069'],
    ['another scheme', 'https://127.0.0.1:42069'],
    ['an origin with a path', 'http://127.0.0.1:42069/x'],
  ])('refuses %s', (_what, origin) => {
    expect(nodeRefusal(origin)?.code).toBe('forbidden_origin');
  });

  it('refuses the API port origin while the service port is unknown', () => {
    expect(nodeRefusal('http://127.0.0.1:42069', POLICY)?.code).toBe('forbidden_origin');
  });
});

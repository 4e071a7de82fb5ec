/**
 * Service settings (src/service/config.ts; README.md §Configuration): flags > HEADSETD_* environment > settings
 * file > defaults, and clear errors for bad values.
 */
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS, executablesDirs, loadSettings } from '../../src/service/config.js';
import { defaultDataDir } from '../../src/service/data-dir.js';
import { HeadsetdError } from '../../src/core/errors.js';
import { scratchDir } from '../support/scratch.js';

let dir: string;
beforeAll(() => {
  dir = scratchDir('headsetd-config');
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function file(name: string, text: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

function refusal(run: () => unknown): HeadsetdError {
  try {
    run();
  } catch (error) {
    if (error instanceof HeadsetdError) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('loadSettings', () => {
  it('an empty settings file holds no settings (regression: it was refused as not an object)', () => {
    const settings = loadSettings({}, {}, file('empty.yaml', ''));
    expect(settings.port).toBe(42069);
  });

  it('--device cyton: with no port or an unknown device says what to give, with an example; lsl and lsl: are lsl:type=EEG as documented', () => {
    const problem = (device: string): string => {
      try {
        loadSettings({ device }, {});
      } catch (error) {
        expect(error).toMatchObject({ code: 'invalid_request', details: { path: '/device' } });
        return (error as Error).message;
      }
      throw new Error(`${device} was accepted`);
    };
    expect(problem('cyton:')).toMatch(
      /^The setting \/device \(--device\): "cyton:" names no serial port: .*cyton:SERIAL_PORT, e\.g\. cyton:\/dev\/ttyUSB0/,
    );
    expect(problem('foo')).toMatch(
      /^The setting \/device \(--device\): "foo" is not a device: use simulated \(.*cyton:\/dev\/ttyUSB0.*lsl:type=EEG/,
    );
    expect(problem('cyton:')).not.toContain('The settings at');
    expect(() => loadSettings({}, { HEADSETD_DEVICE: 'cyton:' })).toThrow(
      /\(HEADSETD_DEVICE\): "cyton:" names no serial port/,
    );
    expect(loadSettings({ device: 'cyton:/dev/ttyUSB0' }, {}).device).toBe('cyton:/dev/ttyUSB0');
    expect(loadSettings({ device: 'lsl' }, {}).device).toBe('lsl');
    expect(loadSettings({ device: 'lsl:' }, {}).device).toBe('lsl:');
  });

  it('gives the defaults when nothing is set', () => {
    const settings = loadSettings({}, {});
    expect(settings).toEqual({ ...DEFAULTS, dataDir: path.resolve(defaultDataDir()) });
    expect(settings.host).toBe('127.0.0.1');
    expect(settings.port).toBe(42069);
    expect(settings.device).toBe('simulated');
    expect(settings.logLevel).toBe('info');
  });

  it('the default data dir follows XDG_DATA_HOME', () => {
    const saved = process.env.XDG_DATA_HOME;
    process.env.XDG_DATA_HOME = '/var/lib/xdg';
    try {
      expect(defaultDataDir()).toBe('/var/lib/xdg/headsetd');
    } finally {
      if (saved === undefined) delete process.env.XDG_DATA_HOME;
      else process.env.XDG_DATA_HOME = saved;
    }
  });

  it('precedence: flags > env > file > defaults, key by key', () => {
    const settingsFile = file('p.yaml', 'port: 1111\nhost: 0.0.0.0\nlogLevel: debug\nseed: 1\n');
    const env = { HEADSETD_PORT: '2222', HEADSETD_HOST: '127.0.0.2' };
    const flags = { port: '3333' };
    const all = loadSettings(flags, env, settingsFile);
    expect(all.port).toBe(3333); // flag
    expect(all.host).toBe('127.0.0.2'); // env over file
    expect(all.logLevel).toBe('debug'); // file over default
    expect(all.seed).toBe(1);
    expect(all.device).toBe('simulated'); // default
    expect(loadSettings({}, env, settingsFile).port).toBe(2222);
    expect(loadSettings({}, {}, settingsFile).port).toBe(1111);
  });

  it('every flag has its HEADSETD_ environment variable', () => {
    const settings = loadSettings(
      {},
      {
        HEADSETD_HOST: '0.0.0.0',
        HEADSETD_PORT: '0',
        HEADSETD_DATA_DIR: path.join(dir, 'data'),
        HEADSETD_DEVICE: 'replay:/tmp/x.edf',
        HEADSETD_SEED: '-7',
        HEADSETD_LOG_LEVEL: 'warn',
        HEADSETD_EXECUTABLES_DIR: '/opt/a, /opt/b',
        HEADSETD_ALLOW_ORIGIN: 'http://a.example',
        HEADSETD_ALLOW_HOST: 'headset.lan,other.lan',
        HEADSETD_PIPE_ALLOW_HOST: 'headset-2.lan',
        HEADSETD_LSL_INTERFACE: 'eth0,wlan0',
        HEADSETD_DISCOVERY: 'off',
        HEADSETD_TRUST_NETWORK: '192.168.1.0/24, 10.0.0.7',
      },
    );
    expect(settings).toEqual({
      host: '0.0.0.0',
      port: 0,
      dataDir: path.join(dir, 'data'),
      device: 'replay:/tmp/x.edf',
      seed: -7,
      logLevel: 'warn',
      executablesDirs: ['/opt/a', '/opt/b'],
      allowedOrigins: ['http://a.example'],
      allowedHosts: ['headset.lan', 'other.lan'],
      pipeAllowedHosts: ['headset-2.lan'],
      discovery: 'off',
      trustedNetworks: ['192.168.1.0/24', '10.0.0.7'],
      trustNetworkAny: false,
      lsl: {
        interfaces: ['eth0', 'wlan0'],
        sessionId: 'default',
        knownPeers: [],
        multicastPort: 16571,
        basePort: 16572,
        portRange: 32,
      },
    });
  });

  it('lsl settings come from the file, --lsl-interface replaces its interfaces, a wrong field is named', () => {
    const file = path.join(dir, 'lsl.yaml');
    writeFileSync(file, 'lsl:\n  interfaces: [eth1]\n  sessionId: lab-7\n  knownPeers: [10.0.0.5]\n');
    expect(loadSettings({}, {}, file).lsl).toEqual({
      interfaces: ['eth1'],
      sessionId: 'lab-7',
      knownPeers: ['10.0.0.5'],
      multicastPort: 16571,
      basePort: 16572,
      portRange: 32,
    });
    expect(loadSettings({ 'lsl-interface': ['eth2'] }, {}, file).lsl.interfaces).toEqual(['eth2']);
    writeFileSync(file, 'lsl:\n  sesionId: lab-7\n');
    expect(() => loadSettings({}, {}, file)).toThrow(/sesionId/);
  });

  it('list flags repeat or join with commas; flags replace the env list', () => {
    const settings = loadSettings(
      { 'executables-dir': ['/x', '/y,/z'], 'allow-host': 'h1' },
      { HEADSETD_EXECUTABLES_DIR: '/env', HEADSETD_ALLOW_HOST: 'h0' },
    );
    expect(settings.executablesDirs).toEqual(['/x', '/y', '/z']);
    expect(settings.allowedHosts).toEqual(['h1']);
  });

  it('an empty environment variable counts as unset', () => {
    expect(loadSettings({}, { HEADSETD_PORT: '', HEADSETD_HOST: '' }).port).toBe(42069);
  });

  it('the settings file may be JSON, and may be named by HEADSETD_CONFIG', () => {
    const json = file('s.json', JSON.stringify({ port: 4444, allowedOrigins: ['http://x'] }));
    expect(loadSettings({}, { HEADSETD_CONFIG: json })).toMatchObject({
      port: 4444,
      allowedOrigins: ['http://x'],
    });
    // An explicit --config wins over HEADSETD_CONFIG.
    const other = file('o.yaml', 'port: 5555\n');
    expect(loadSettings({}, { HEADSETD_CONFIG: json }, other).port).toBe(5555);
  });

  it('the data dir is made absolute', () => {
    expect(path.isAbsolute(loadSettings({ 'data-dir': 'relative/dir' }, {}).dataDir)).toBe(true);
    const settings = loadSettings({ 'data-dir': '/srv/headsetd', 'executables-dir': 'extra' }, {});
    expect(executablesDirs(settings)).toEqual(['/srv/headsetd/executables', path.resolve('extra')]);
  });

  it.each([
    [{ port: 'abc' }, {}, '--port must be a whole number'],
    [{ port: '1.5' }, {}, '--port must be a whole number'],
    [{}, { HEADSETD_PORT: '80a' }, 'HEADSETD_PORT must be a whole number'],
    [{}, { HEADSETD_SEED: 'x' }, 'HEADSETD_SEED must be a whole number'],
    [{ port: '70000' }, {}, '/port'],
    [{ port: '-1' }, {}, '/port'],
    [{ 'log-level': 'loud' }, {}, '/logLevel'],
    [{ device: 'hardware' }, {}, '/device'],
    [{ device: 'replay:' }, {}, '/device'],
    [{ host: '' }, {}, '/host'],
  ])('refuses flags %j env %j: %s', (flags, env, message) => {
    const error = refusal(() => loadSettings(flags, env));
    expect(error.message).toContain(message);
    expect(['invalid_request', 'validation_failed']).toContain(error.code);
  });

  it('refuses a bad settings file with the file named', () => {
    const missing = path.join(dir, 'missing.yaml');
    expect(refusal(() => loadSettings({}, {}, missing)).message).toContain(missing);
    const broken = file('broken.yaml', 'port: [1\n');
    expect(refusal(() => loadSettings({}, {}, broken)).message).toContain(broken);
    const list = file('list.yaml', '- 1\n- 2\n');
    expect(refusal(() => loadSettings({}, {}, list)).message).toContain('must hold an object');
    const unknown = file('unknown.yaml', 'prot: 80\n');
    const error = refusal(() => loadSettings({}, {}, unknown));
    expect(error.message).toContain('/prot');
    expect(error.details).toMatchObject({ path: '/prot' });
    const typed = file('typed.yaml', 'port: "8080"\n');
    expect(refusal(() => loadSettings({}, {}, typed)).message).toContain('/port');
  });

  // Regression: each of these was accepted, and a tokenless request from any peer was then served.
  it.each(['0.0.0.0/0', '::/0', '0.0.0.0/1', '::/80'])(
    'a trusted network that covers too much (%s) is refused from a flag, the environment or a settings file, naming where and what',
    (block) => {
      const shown = JSON.stringify(block);
      expect(refusal(() => loadSettings({ 'trust-network': ['10.9.9.0/24', block] }, {})).message).toMatch(
        new RegExp(`^--trust-network ${escape(shown)} covers .*--trust-network-any`),
      );
      expect(
        refusal(() => loadSettings({}, { HEADSETD_TRUST_NETWORK: `10.9.9.0/24,${block}` })).message,
      ).toMatch(new RegExp(`^HEADSETD_TRUST_NETWORK ${escape(shown)} covers `));
      const settings = file('broad.yaml', `trustedNetworks: ['${block}']\n`);
      const fromFile = refusal(() => loadSettings({}, {}, settings));
      expect(fromFile.message).toMatch(
        new RegExp(`^trustedNetworks of the settings file .*broad\\.yaml ${escape(shown)} covers `),
      );
      expect(fromFile.details).toMatchObject({ setting: 'trustedNetworks', value: block });
    },
  );

  it('--trust-network-any (flag, environment or settings file) lets a network of any breadth through', () => {
    expect(loadSettings({ 'trust-network': ['0.0.0.0/0'], 'trust-network-any': 'true' }, {})).toMatchObject({
      trustedNetworks: ['0.0.0.0/0'],
      trustNetworkAny: true,
    });
    expect(
      loadSettings({}, { HEADSETD_TRUST_NETWORK: '::/0', HEADSETD_TRUST_NETWORK_ANY: '1' }).trustNetworkAny,
    ).toBe(true);
    const settings = file('any.yaml', "trustedNetworks: ['::/80']\ntrustNetworkAny: true\n");
    expect(loadSettings({}, {}, settings).trustNetworkAny).toBe(true);
    expect(refusal(() => loadSettings({}, { HEADSETD_TRUST_NETWORK_ANY: 'yes please' })).message).toContain(
      'HEADSETD_TRUST_NETWORK_ANY must be true or false',
    );
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

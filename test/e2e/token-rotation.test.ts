/**
 * The token of a service served beyond loopback, and `headsetd token rotate`: every request and
 * every WebSocket upgrade needs the token, on the API's port and on a websocket node's port (a
 * socket of a worker thread), and after a rotation the running service accepts only the new one
 * on all of them, without a restart.
 *
 * Nothing leaves this machine: the service listens on `::ffff:127.0.0.1`, the IPv4 loopback
 * address in IPv6 form, which headsetd does not count among loopback names (config.ts), so it
 * behaves as when listening beyond loopback; the clients connect to 127.0.0.1.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, type Service, startService } from '../support/service.js';
import { tryUpgrade } from '../support/upgrade.js';
import { eventually } from '../support/wait.js';

const STREAM = '7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6';

let service: Service;
let api: string;
let nodePort: number;
let firstToken: string;

function call(pathname: string, token: string | undefined, init: RequestInit = {}) {
  return fetch(`${api}${pathname}`, {
    ...init,
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      'content-type': 'application/json',
      ...(init.headers as Record<string, string> | undefined),
    },
  });
}

async function upgradeStatus(url: string): Promise<number> {
  const outcome = await tryUpgrade(url);
  if (outcome.kind === 'open') {
    outcome.socket.close();
    return 101;
  }
  return outcome.status;
}

beforeAll(async () => {
  service = await startService({ args: ['--host', '::ffff:127.0.0.1'] });
  api = `http://127.0.0.1:${service.port}`;
  firstToken = readFileSync(path.join(service.dataDir, 'token'), 'utf8').trim();
  const created = await call('/stream/streams', firstToken, {
    method: 'POST',
    body: JSON.stringify({
      id: STREAM,
      nodes: [
        {
          id: 'gen',
          executable: 'signal-generator',
          config: { sampleRate: 250, amplitudes: [1], frequencies: [10], channels: 1 },
        },
        { id: 'ws', executable: 'websocket', config: { port: 0 } },
      ],
      pipes: [{ id: 'p', source: 'gen', destination: 'ws' }],
    }),
  });
  expect(created.status, await created.clone().text()).toBe(200);
  await call(`/stream/streams/${STREAM}/signal`, firstToken, {
    method: 'POST',
    body: JSON.stringify({ signal: 'start' }),
  });
  nodePort = await eventually(
    async () => {
      const status = (await (await call(`/stream/streams/${STREAM}/status`, firstToken)).json()) as {
        status: { nodes: { id: string; port?: number }[] };
      };
      return status.status.nodes.find((n) => n.id === 'ws')?.port;
    },
    20_000,
    "the websocket node's port",
  );
}, 40_000);

afterAll(async () => {
  await service.stop();
});

describe('a service served beyond loopback', () => {
  it('refuses a request without the token or with a wrong one, with 401 and the envelope', async () => {
    for (const token of [undefined, 'wrong', `${firstToken}x`, firstToken.slice(0, -1)]) {
      const answer = await call('/stream/streams', token);
      expect(answer.status, String(token)).toBe(401);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe(
        'authentication_required',
      );
    }
    expect((await call('/stream/streams', firstToken)).status).toBe(200);
  });

  it('refuses upgrades without the token on the API and on a websocket node, and accepts ?token=', async () => {
    for (const base of [`ws://127.0.0.1:${service.port}/system/events`, `ws://127.0.0.1:${nodePort}/`]) {
      expect(await upgradeStatus(base), base).toBe(401);
      expect(await upgradeStatus(`${base}?token=wrong`), base).toBe(401);
      expect(await upgradeStatus(`${base}?token=${firstToken}`), base).toBe(101);
    }
  });
});

describe('headsetd token rotate', () => {
  it('writes a new token that the running service requires at once, everywhere, and refuses the old one', async () => {
    const rotated = spawnSync(process.execPath, [CLI, 'token', 'rotate', '--data-dir', service.dataDir], {
      encoding: 'utf8',
    });
    expect(rotated.status, rotated.stderr).toBe(0);
    const newToken = rotated.stdout.trim();
    expect(newToken.length).toBeGreaterThanOrEqual(32);
    expect(newToken).not.toBe(firstToken);
    expect(readFileSync(path.join(service.dataDir, 'token'), 'utf8').trim()).toBe(newToken);
    // Readable by the device's owner only, as when first created.
    expect(statSync(path.join(service.dataDir, 'token')).mode & 0o777).toBe(0o600);
    expect(rotated.stderr).toContain('the old one is refused');

    expect((await call('/stream/streams', firstToken)).status).toBe(401);
    expect((await call('/stream/streams', newToken)).status).toBe(200);
    for (const base of [`ws://127.0.0.1:${service.port}/system/events`, `ws://127.0.0.1:${nodePort}/`]) {
      expect(await upgradeStatus(`${base}?token=${firstToken}`), base).toBe(401);
      expect(await upgradeStatus(`${base}?token=${newToken}`), base).toBe(101);
    }
    // `headsetd token` prints the token in force.
    const printed = spawnSync(process.execPath, [CLI, 'token', '--data-dir', service.dataDir], {
      encoding: 'utf8',
    });
    expect(printed.stdout.trim()).toBe(newToken);
  });

  it('names the actions it knows when given another', () => {
    const result = spawnSync(process.execPath, [CLI, 'token', 'renew', '--data-dir', service.dataDir], {
      encoding: 'utf8',
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('headsetd token rotate');
  });
});

/**
 * Runtime failures reach GET /system/events as system events: a crashing node of a running stream
 * is announced as `node_crashed`, to a real WebSocket client of the real service.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import WebSocket from 'ws';
import { json, type Service, startService, tempDataDir } from '../support/service.js';
import { eventually } from '../support/wait.js';

let service: Service | undefined;
afterEach(async () => {
  await service?.stop('SIGKILL');
  service = undefined;
});

test('a node that crashes is announced on /system/events as node_crashed', async () => {
  const dataDir = tempDataDir();
  mkdirSync(path.join(dataDir, 'executables'));
  const script = path.join(dataDir, 'executables', 'crash.sh');
  // Ready, then dies with status 3 as soon as the first frame arrives.
  writeFileSync(
    script,
    '#!/bin/sh\nprintf \'{"type":"ready"}\\n\'\nread line\nread line\necho "giving up" >&2\nexit 3\n',
  );
  chmodSync(script, 0o755);
  service = await startService({ dataDir });

  const events: { type: string; eventType?: string; level?: string; message?: string }[] = [];
  const socket = new WebSocket(`${service.url.replace('http', 'ws')}/system/events`);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  socket.on('message', (data: Buffer) => events.push(JSON.parse(data.toString())));

  const id = 'cccccccc-0000-4000-8000-000000000001';
  const created = await json(`${service.url}/stream/streams`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      id,
      nodes: [
        {
          id: 'gen',
          executable: 'signal-generator',
          config: { sampleRate: 100, amplitudes: [1], frequencies: [5] },
        },
        { id: 'bad', executable: 'crash.sh', config: { restart: 'no' } },
      ],
      pipes: [{ id: 'p', source: 'gen', destination: 'bad' }],
    }),
  });
  expect(created.status).toBe(200);
  await json(`${service.url}/stream/streams/${id}/signal`, {
    method: 'POST',
    body: new URLSearchParams({ signal: 'start' }),
  });

  const crash = await eventually(
    async () => events.find((e) => e.eventType === 'node_crashed'),
    15_000,
    'node_crashed',
  );
  expect(crash).toMatchObject({ type: 'system', level: 'error' });
  expect(crash.message).toContain('bad');
  expect(crash.message).toContain('giving up');
  socket.close();

  const status = await json(`${service.url}/stream/streams/${id}/status`);
  const bad = status.body.status.nodes.find((n: { id: string }) => n.id === 'bad');
  expect(bad.state).toBe('error');
  expect(bad.metrics.lastError).toContain('code 3');
}, 40_000);

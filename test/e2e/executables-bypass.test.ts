/**
 * Regression, end to end through the real service: interpreter options with attached code
 * (`python3 "-cCODE" moving_average.py` and the like) ran that code as the service's user. Now none
 * of them creates its file, whether sent to the API, started after being stored by an older
 * version, or restored at boot; and code-like arguments after the script reach the script only.
 * A control node that does create a file shows that the check would see one.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/platform/store/database.js';
import { StreamStore } from '../../src/streams/store.js';
import { BYPASS_FORMS, populateAttackFiles } from '../support/executable-attacks.js';
import { json, type Service, startService, tempDataDir } from '../support/service.js';
import { eventually } from '../support/wait.js';

const STORED_CREATED = '1b0c8a4e-0d2f-4c3a-9b1e-2f3a4b5c6d7e';
const STORED_RUNNING = '2b0c8a4e-0d2f-4c3a-9b1e-2f3a4b5c6d7e';
const ARGUMENTS = '3b0c8a4e-0d2f-4c3a-9b1e-2f3a4b5c6d7e';
const CONTROL = '4b0c8a4e-0d2f-4c3a-9b1e-2f3a4b5c6d7e';

let service: Service;
let dataDir: string;

/** Every file under `dir` whose name is `name`. */
function filesNamed(dir: string, name: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => path.basename(f) === name);
}

function storedStream(id: string) {
  const now = new Date().toISOString();
  return {
    id,
    meta: { created: now, updated: now },
    nodes: BYPASS_FORMS.map((executable, i) => ({ id: `n${i}`, executable })),
    pipes: [],
  };
}

function fedBy(id: string, executable: string) {
  return {
    id,
    nodes: [
      {
        id: 'gen',
        executable: 'signal-generator',
        config: { sampleRate: 250, amplitudes: [1], frequencies: [10], channels: 2 },
      },
      { id: 'x', executable, config: { restart: 'no' } },
    ],
    pipes: [{ id: 'p', source: 'gen', destination: 'x' }],
  };
}

beforeAll(async () => {
  dataDir = tempDataDir();
  const dir = populateAttackFiles(dataDir);
  writeFileSync(path.join(dir, 'control.sh'), 'touch control-ran\nexit 1\n');
  // As an older headsetd stored them, one of them wanted running: the restore at boot starts it.
  const db = openDatabase(dataDir);
  const store = new StreamStore(db);
  store.insert(storedStream(STORED_CREATED));
  store.insert(storedStream(STORED_RUNNING), 'running');
  db.close();
  service = await startService({ dataDir });
}, 30_000);

afterAll(async () => {
  await service.stop();
});

describe('no interpreter option runs code through the real API', () => {
  it('refuses each bypass form at create (403)', async () => {
    for (const executable of BYPASS_FORMS) {
      const answer = await json(`${service.url}/stream/streams`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: ARGUMENTS, nodes: [{ id: 'x', executable }], pipes: [] }),
      });
      expect(answer.status, executable).toBe(403);
      expect(answer.body.error.code).toBe('executable_not_allowed');
    }
  });

  it('refuses to start a stored stream of bypass forms (403), and the restored one ends in error', async () => {
    const started = await json(`${service.url}/stream/streams/${STORED_CREATED}/signal`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ signal: 'start' }),
    });
    expect(started.status).toBe(403);
    expect(started.body.error.code).toBe('executable_not_allowed');

    const restored = await eventually(
      async () => {
        const status = await json(`${service.url}/stream/streams/${STORED_RUNNING}/status`);
        return status.body.status.state === 'error' ? (status.body.status as { error: string }) : undefined;
      },
      20_000,
      'the restored stream in error',
    );
    expect(restored.error).toContain('is an option of');
  }, 30_000);

  it('passes code-like arguments after the script to the script, which runs', async () => {
    const created = await json(`${service.url}/stream/streams`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(
        fedBy(
          ARGUMENTS,
          `python3 moving_average.py "-cimport os; os.system('id > pwned')" -c "open('pwned','w')"`,
        ),
      ),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    await json(`${service.url}/stream/streams/${ARGUMENTS}/signal`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ signal: 'start' }),
    });
    await eventually(
      async () => {
        const status = await json(`${service.url}/stream/streams/${ARGUMENTS}/status`);
        const node = (status.body.status.nodes as { id: string; metrics: { itemsProcessed: number } }[]).find(
          (n) => n.id === 'x',
        );
        const processed = node?.metrics.itemsProcessed;
        return typeof processed === 'number' && processed > 10 ? processed : undefined;
      },
      20_000,
      'frames through the python node',
    );
  }, 30_000);

  it('the control node creates its file, and no attack created one', async () => {
    await json(`${service.url}/stream/streams`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: CONTROL, nodes: [{ id: 'c', executable: 'sh control.sh' }], pipes: [] }),
    });
    await json(`${service.url}/stream/streams/${CONTROL}/signal`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ signal: 'start' }),
    });
    await eventually(
      async () => (filesNamed(dataDir, 'control-ran').length > 0 ? true : undefined),
      20_000,
      'the control file',
    );
    expect(filesNamed(dataDir, 'pwned')).toEqual([]);
  }, 30_000);
});

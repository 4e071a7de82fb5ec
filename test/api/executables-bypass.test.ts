/**
 * Regression: command lines that gave an interpreter an attached option (`python3 "-cCODE"
 * script.py`, `node --eval=CODE script.mjs`, `node --require=../x.cjs script.mjs`, `perl -eCODE
 * script.py`) passed the allow-list. Now each is 403 executable_not_allowed wherever a node's
 * executable enters the API (create, replace, node addition) and at start, for a stream stored
 * before the rules were tightened.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/platform/store/database.js';
import { StreamStore } from '../../src/streams/store.js';
import { type ControlPlane, controlPlane, STREAM_ID } from '../support/control-plane.js';
import { BYPASS_FORMS, populateAttackFiles } from '../support/executable-attacks.js';
import { expectError, json, ok } from './helpers.js';
import { scratchDir } from '../support/scratch.js';

let cp: ControlPlane | undefined;
afterEach(async () => {
  await cp?.close();
  cp = undefined;
});

describe('interpreter options through the API', () => {
  it.each(BYPASS_FORMS)('refuses %s at create, replace and node addition (403)', async (executable) => {
    const dataDir = scratchDir('headsetd-bypass');
    populateAttackFiles(dataDir);
    cp = await controlPlane({ dataDir });
    const node = { id: 'x', executable };
    const created = expectError(
      await json(cp, 'POST', '/stream/streams', { id: STREAM_ID, nodes: [node], pipes: [] }),
      403,
      'executable_not_allowed',
    );
    expect(created.error.details?.path).toBe('/nodes/0/executable');

    ok(await json(cp, 'POST', '/stream/streams', { id: STREAM_ID, nodes: [], pipes: [] }));
    expectError(
      await json(cp, 'PUT', `/stream/streams/${STREAM_ID}`, { nodes: [node], pipes: [] }),
      403,
      'executable_not_allowed',
    );
    const added = expectError(
      await json(cp, 'POST', `/stream/streams/${STREAM_ID}/nodes`, [node]),
      403,
      'executable_not_allowed',
    );
    expect(added.error.details?.path).toBe('/0/executable');
  });

  it('refuses to start a stored stream whose executable the rules no longer allow (403)', async () => {
    const dataDir = scratchDir('headsetd-bypass');
    populateAttackFiles(dataDir);
    // As an older headsetd stored them: past the API's validation.
    const db = openDatabase(dataDir);
    const now = new Date().toISOString();
    new StreamStore(db).insert({
      id: STREAM_ID,
      meta: { created: now, updated: now },
      nodes: BYPASS_FORMS.map((executable, i) => ({ id: `n${i}`, executable })),
      pipes: [],
    });
    db.close();
    cp = await controlPlane({ dataDir });

    for (const signal of ['start', 'reconcile']) {
      const error = expectError(
        await json(cp, 'POST', `/stream/streams/${STREAM_ID}/signal`, { signal }),
        403,
        'executable_not_allowed',
      );
      expect(error.error.details?.path).toBe('/nodes/0/executable');
      expect((error.error.details?.errors as unknown[]).length).toBe(BYPASS_FORMS.length);
    }
    expect(cp.runtime.status(STREAM_ID)).toBeUndefined();
    expect(cp.manager.get(STREAM_ID).state).toBe('created');
  });
});

/**
 * A recorder's `filename` is checked once, when the stream is created, in UTF-8 bytes and
 * characters: a name that passes never fails at start (60 × 😀 passed a UTF-16 length check and
 * failed with ENAMETOOLONG; `x\x7f` passed create and failed at start), and one that does not is
 * refused with 422 `validation_failed` at `/nodes/N/config/filename`, saying the byte limit and the
 * characters refused.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MAX_FILENAME_BYTES } from '../../src/recordings/index.js';
import { expectError, json } from '../api/helpers.js';
import { type ControlPlane, controlPlane } from '../support/control-plane.js';
import { feed, recorderHarness } from './support.js';
import { scratchDir } from '../support/scratch.js';

let cp: ControlPlane;
beforeAll(async () => {
  cp = await controlPlane();
});
afterAll(async () => {
  await cp.close();
});

const ID = 'f11e0000-0000-4000-8000-000000000001';

function create(filename: string, format?: string) {
  return json(cp, 'POST', '/stream/streams', {
    id: ID,
    nodes: [
      {
        id: 'gen',
        executable: 'signal-generator',
        config: { sampleRate: 250, amplitudes: [10], frequencies: [5] },
      },
      {
        id: 'rec',
        executable: 'recorder',
        config: { filename, ...(format === undefined ? {} : { format }) },
      },
    ],
    pipes: [{ id: 'p', source: 'gen', destination: 'rec' }],
  });
}

describe('refused at create', () => {
  test.each([
    ['60 × 😀 (120 UTF-16 units, 240 bytes)', '😀'.repeat(60), 'it is 240 bytes long in UTF-8'],
    ['201 ASCII bytes', 'a'.repeat(201), 'it is 201 bytes long in UTF-8'],
    ['DEL (x\\x7f)', 'x\x7f', 'the control character U+007F'],
    ['NUL', 'x\0y', 'the control character U+0000'],
    ['a tab', 'a\tb', 'the control character U+0009'],
    ['a C1 control (NEL)', 'a\u0085b', 'the control character U+0085'],
    ['a leading dot', '.hidden', "it starts with '.'"],
    ['a slash', 'a/b', "it contains '/'"],
    ['a backslash', 'a\\b', "it contains '\\'"],
    ['..', 'a..b', "it contains '..'"],
  ])(
    '%s: 422 at /nodes/1/config/filename, saying the byte limit and the refused characters',
    async (_, filename, why) => {
      const body = expectError(await create(filename, 'edf'), 422, 'validation_failed');
      expect(body.error.details?.path).toBe('/nodes/1/config/filename');
      expect(body.error.message).toContain(why);
      expect(body.error.message).toContain(`1 to ${MAX_FILENAME_BYTES} bytes in UTF-8`);
      expect(body.error.message).toContain('DEL U+007F');
      expect(body.error.message).toContain("must not start with '.'");
      expect(body.error.message).toContain("'/'");
      expect(cp.manager.list()).toEqual([]);
    },
  );

  test('a name whose extension says another format than format: 422 at create, not a failure at start', async () => {
    const body = expectError(await create('x.csv', 'edf'), 422, 'validation_failed');
    expect(body.error.details?.path).toBe('/nodes/1/config/filename');
    expect(body.error.message).toContain('names a CSV file but format is edf');
  });
});

describe('what passes create records', () => {
  const dataDir = scratchDir('headsetd-filename');
  test.each([
    ['50 × 😀 (200 bytes) as CSV', '😀'.repeat(50), 'csv'],
    ['100 × é (200 bytes) as BDF', 'é'.repeat(100), 'bdf'],
    ['200 ASCII bytes with its extension', `${'a'.repeat(196)}.edf`, undefined],
  ])('%s: created, then recorded in two segments with sidecars and events', async (_, filename, format) => {
    const created = await create(filename, format);
    expect(created.statusCode, created.body).toBe(200);
    await json(cp, 'DELETE', `/stream/streams/${ID}`);

    const h = recorderHarness(dataDir, { filename, ...(format === undefined ? {} : { format }) });
    await h.node.start();
    const seq = feed(h.node, 250, 1.2, { range: 60 });
    // A rate change continues in segment -2: a longer name, with its own sidecar.
    feed(h.node, 500, 1.2, { range: 60, discontinuity: true }, undefined, seq);
    await h.node.stop();
    expect(h.failures).toEqual([]);
    const name = h.info.recording as string;
    expect(name).toMatch(/-2\.(csv|bdf|edf)$/);
    const dir = path.join(dataDir, 'recordings');
    const first = name.replace(/-2(\.\w+)$/, '$1');
    for (const file of [first, name, `.${first}.json`, `.${name}.json`])
      expect(existsSync(path.join(dir, file)), file).toBe(true);
    if (format === 'csv')
      expect(existsSync(path.join(dir, name.replace(/\.csv$/, '.events.csv')))).toBe(true);
  });
});

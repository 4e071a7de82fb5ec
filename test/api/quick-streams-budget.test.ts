/**
 * Regression (found by the OpenAPI fuzz): every quick stream could ask for a buffer of 16 Mi
 * values, and 256 of them for tens of gigabytes; the fuzz's service grew past 13 GB. The buffers
 * of all quick streams together now have a budget, and a start that would pass it is a 422 at
 * /bufferSize saying how many samples still fit. And a deleted running quick stream was made a
 * session again by the stop it announced after its removal, so its buffer was never freed.
 */
import { afterEach, expect, test } from 'vitest';
import { QUICK_BUFFERS_BUDGET_BYTES } from '../../src/streams/quick-stream.js';
import { expectError, json, ok } from './helpers.js';
import { type QuickPlane, quickPlane } from './quick-streams-helpers.js';

let cp: QuickPlane;
afterEach(async () => {
  await cp.close();
});

test('quick streams share one buffer budget: the start beyond it is refused with the room left', async () => {
  cp = await quickPlane();
  // One channel: 12 bytes per sample (4 for the value, 8 for its timestamp).
  const big = { channels: ['O1'], bufferSize: 16 * 1024 * 1024 };
  const perStream = big.bufferSize * 12;
  const fit = Math.floor(QUICK_BUFFERS_BUDGET_BYTES / perStream);
  const ids: string[] = [];
  for (let i = 0; i < fit; i++)
    ids.push(ok<{ streamId: string }>(await json(cp, 'POST', '/stream/start', big)).streamId);
  const refused = expectError(await json(cp, 'POST', '/stream/start', big), 422, 'validation_failed');
  expect(refused.error.details?.path).toBe('/bufferSize');
  expect(refused.error.message).toContain('ask for at most');
  const room = refused.error.details?.maxBufferSize as number;
  expect(room).toBe(Math.floor((QUICK_BUFFERS_BUDGET_BYTES - fit * perStream) / 12));
  // What it says fits does fit; deleting a quick stream gives its room back.
  if (room > 0) ok(await json(cp, 'POST', '/stream/start', { channels: ['O1'], bufferSize: room }));
  ok(await json(cp, 'DELETE', `/stream/streams/${ids[0] ?? ''}`));
  ok(await json(cp, 'POST', '/stream/start', big));
});

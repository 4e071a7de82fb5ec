/**
 * docs/builtins.md holds the built-ins' config reference generated from their config schemas
 * (src/streams/executables/config-reference.ts), between two markers: the page must equal what the
 * schemas say. After changing a schema, rewrite the page with
 * `HEADSETD_WRITE_DOCS=1 npx vitest run test/docs/builtins-reference.test.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { BUILTINS } from '../../src/streams/executables/builtins.js';
import { builtinConfigReference } from '../../src/streams/executables/config-reference.js';

const PAGE = new URL('../../docs/builtins.md', import.meta.url);
const BEGIN = '<!-- generated from the config schemas: begin -->\n';
const END = '<!-- generated from the config schemas: end -->';

test('docs/builtins.md shows every built-in config as its schema says', () => {
  const page = readFileSync(PAGE, 'utf8');
  const start = page.indexOf(BEGIN);
  const end = page.indexOf(END);
  expect(start).toBeGreaterThan(0);
  expect(end).toBeGreaterThan(start);
  const generated = builtinConfigReference();
  if (process.env.HEADSETD_WRITE_DOCS === '1') {
    writeFileSync(PAGE, page.slice(0, start + BEGIN.length) + generated + page.slice(end));
    return;
  }
  expect(page.slice(start + BEGIN.length, end)).toBe(generated);
  for (const builtin of BUILTINS) expect(page).toContain(`### \`${builtin.name}\``);
});

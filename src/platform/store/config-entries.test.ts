import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { type Db, openDatabase } from './database.js';
import { ConfigEntries, durationMs } from './config-entries.js';
import { scratchDir } from '../../../test/support/scratch.js';

let dir: string;
let db: Db;
let now = Date.parse('2026-01-01T00:00:00Z');
beforeEach(() => {
  dir = scratchDir('headsetd-entries');
  db = openDatabase(dir);
  now = Date.parse('2026-01-01T00:00:00Z');
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('config entries', () => {
  test('durations: a whole number and a unit', () => {
    expect(durationMs('30m')).toBe(1_800_000);
    expect(durationMs('2d')).toBe(172_800_000);
    expect(durationMs('1.5h')).toBeUndefined();
    expect(durationMs('h')).toBeUndefined();
  });

  test('an entry that expires is gone once its time has come, from get and from the list', () => {
    const entries = new ConfigEntries(db, () => now);
    entries.create({ key: 'session.token', value: 'abc', expiresIn: '1h' });
    entries.create({ key: 'theme', value: 'dark' });
    now += 3_599_000;
    expect(entries.get('session.token').value).toBe('abc');
    now += 1000;
    expect(() => entries.get('session.token')).toThrow(/No config entry/);
    expect(entries.list().map((e) => e.key)).toEqual(['theme']);
  });

  test('expires_in counts from the instant the entry was written, even when the clock moves meanwhile', () => {
    // A clock that moves a millisecond at every reading (the e2e test once saw 3600001 ms).
    const entries = new ConfigEntries(db, () => now++);
    const created = entries.create({ key: 'k', value: 1, expiresIn: '1h' });
    expect(Date.parse(created.expiresOn ?? '') - Date.parse(created.createdAt)).toBe(3_600_000);
    const updated = entries.update('k', { key: 'k', value: 2, expiresIn: '30m' });
    expect(Date.parse(updated.expiresOn ?? '') - Date.parse(updated.updatedAt)).toBe(1_800_000);
  });

  test('an update keeps the id and creation time, and is kept across a reopening of the store', () => {
    const entries = new ConfigEntries(db, () => now);
    const created = entries.create({ key: 'k', value: 1, id: 'mine' });
    now += 60_000;
    const updated = entries.update('k', { key: 'k', value: { deep: [1, 2] } });
    expect(updated).toMatchObject({ id: 'mine', createdAt: created.createdAt, value: { deep: [1, 2] } });
    expect(updated.updatedAt).not.toBe(created.updatedAt);
    expect(new ConfigEntries(db, () => now).get('k').value).toEqual({ deep: [1, 2] });
  });

  test('refusals name the field: a malformed expiry, a key with a slash, a key of the body unlike the path', () => {
    const entries = new ConfigEntries(db, () => now);
    expect(() => entries.create({ key: 'a', value: 1, expiresIn: 'soon' })).toThrow(/expires_in/);
    expect(() => entries.create({ key: 'a', value: 1, expiresOn: 'tomorrow' })).toThrow(/expires_on/);
    expect(() => entries.create({ key: 'a/b', value: 1 })).toThrow(/without '\/'/);
    entries.create({ key: 'a', value: 1 });
    expect(() => entries.update('a', { key: 'b', value: 2 })).toThrow(/not the key of the path/);
  });
});

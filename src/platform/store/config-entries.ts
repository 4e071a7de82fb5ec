/**
 * The device's key-value store of application entries (docs/instinct-sdk.md §Config store): what
 * an app keeps on the device under a key of its own (a theme, a session token), each entry with an
 * id, its creation and update times, and an optional expiry (`expiresIn` such as `30m`, `1h`,
 * `2d`, or an ISO 8601 `expiresOn`). Entries live in the store's `settings` table under the prefix
 * `entry:`, apart from the device's own settings; an expired entry is forgotten when next read.
 */
import { randomUUID } from 'node:crypto';
import { HeadsetdError } from '../../core/errors.js';
import type { Db } from './database.js';
import { storeWrite } from './storage-errors.js';
import { ensureTables } from './migrations.js';

const PREFIX = 'entry:';
/** Longest key, in characters. */
export const MAX_ENTRY_KEY_LENGTH = 256;
/** Most entries the store holds. */
export const MAX_ENTRIES = 1000;

export interface ConfigEntry {
  readonly key: string;
  readonly value: unknown;
  readonly id: string;
  readonly expiresIn: string | null;
  readonly expiresOn: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** What a client asks to store; `id`, times and expiry are optional. */
export interface ConfigEntryInput {
  readonly key: string;
  readonly value: unknown;
  readonly id?: string | null;
  readonly expiresIn?: string | null;
  readonly expiresOn?: string | null;
}

const UNITS_MS: Readonly<Record<string, number>> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** ms of a duration such as `30m`, `1h`, `2d`; undefined when it is not one. */
export function durationMs(text: string): number | undefined {
  const match = /^(\d{1,9})([smhdw])$/.exec(text.trim());
  if (match === null) return undefined;
  return Number(match[1]) * (UNITS_MS[match[2] as string] as number);
}

function invalid(message: string, path: string): HeadsetdError {
  return new HeadsetdError('validation_failed', message, { path });
}

export function checkEntryKey(key: string, path: string): void {
  if (key.length === 0 || key.length > MAX_ENTRY_KEY_LENGTH || key.includes('/')) {
    throw invalid(
      `The key must be 1 to ${MAX_ENTRY_KEY_LENGTH} characters without '/'; got ${JSON.stringify(key.slice(0, 80))}.`,
      path,
    );
  }
}

export class ConfigEntries {
  private readonly db: Db;
  private readonly readOne;
  private readonly readAll;
  private readonly write;
  private readonly remove;
  private readonly count;

  constructor(
    db: Db,
    private readonly now: () => number = Date.now,
  ) {
    ensureTables(db);
    this.db = db;
    this.readOne = db.prepare('SELECT value FROM settings WHERE key = ?');
    this.readAll = db.prepare("SELECT key, value FROM settings WHERE key LIKE 'entry:%' ORDER BY key");
    this.write = db.prepare(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    );
    this.remove = db.prepare('DELETE FROM settings WHERE key = ?');
    this.count = db.prepare("SELECT COUNT(*) AS n FROM settings WHERE key LIKE 'entry:%'");
  }

  private parse(text: string): ConfigEntry | undefined {
    try {
      return JSON.parse(text) as ConfigEntry;
    } catch {
      return undefined;
    }
  }

  private expired(entry: ConfigEntry): boolean {
    return entry.expiresOn !== null && Date.parse(entry.expiresOn) <= this.now();
  }

  private live(key: string): ConfigEntry | undefined {
    const row = this.readOne.get(PREFIX + key) as { value: string } | undefined;
    const entry = row === undefined ? undefined : this.parse(row.value);
    if (entry === undefined) return undefined;
    if (this.expired(entry)) {
      storeWrite(this.db, 'an expired entry', () => this.remove.run(PREFIX + key));
      return undefined;
    }
    return entry;
  }

  list(): ConfigEntry[] {
    const rows = this.readAll.all() as { key: string; value: string }[];
    const entries: ConfigEntry[] = [];
    for (const row of rows) {
      const entry = this.parse(row.value);
      if (entry !== undefined && !this.expired(entry)) entries.push(entry);
    }
    return entries;
  }

  get(key: string): ConfigEntry {
    const entry = this.live(key);
    if (entry === undefined) {
      throw new HeadsetdError('not_found', `No config entry has the key ${JSON.stringify(key)}.`, {
        path: '/params/key',
      });
    }
    return entry;
  }

  create(input: ConfigEntryInput): ConfigEntry {
    checkEntryKey(input.key, '/key');
    if (this.live(input.key) !== undefined) {
      throw new HeadsetdError(
        'validation_failed',
        `A config entry with the key ${JSON.stringify(input.key)} exists; update it with PUT /system/config/{key}.`,
        { path: '/key' },
      );
    }
    if ((this.count.get() as { n: number }).n >= MAX_ENTRIES) {
      throw new HeadsetdError(
        'validation_failed',
        `The store holds at most ${MAX_ENTRIES} entries; delete one first.`,
        {},
      );
    }
    const at = new Date(this.now()).toISOString();
    return this.save(input, input.id ?? randomUUID(), at, at);
  }

  update(key: string, input: ConfigEntryInput): ConfigEntry {
    if (input.key !== key) {
      throw invalid(
        `The body's key ${JSON.stringify(input.key)} is not the key of the path, ${JSON.stringify(key)}.`,
        '/key',
      );
    }
    const previous = this.get(key);
    return this.save(input, previous.id, previous.createdAt, new Date(this.now()).toISOString());
  }

  delete(key: string): ConfigEntry {
    const entry = this.get(key);
    storeWrite(this.db, 'the config entry', () => this.remove.run(PREFIX + key));
    return entry;
  }

  private save(input: ConfigEntryInput, id: string, createdAt: string, updatedAt: string): ConfigEntry {
    const expiresIn = input.expiresIn ?? null;
    let expiresOn = input.expiresOn ?? null;
    if (expiresIn !== null) {
      const ms = durationMs(expiresIn);
      if (ms === undefined) {
        throw invalid(
          `expires_in must be a whole number and a unit, s, m, h, d or w (30m, 1h, 2d); got ${JSON.stringify(expiresIn)}.`,
          '/expires_in',
        );
      }
      // From the instant the entry is written (its updatedAt), not a second reading of the clock.
      expiresOn = new Date(Date.parse(updatedAt) + ms).toISOString();
    } else if (expiresOn !== null) {
      const at = Date.parse(expiresOn);
      if (Number.isNaN(at)) {
        throw invalid(
          `expires_on must be an ISO 8601 date and time; got ${JSON.stringify(expiresOn)}.`,
          '/expires_on',
        );
      }
      expiresOn = new Date(at).toISOString();
    }
    const entry: ConfigEntry = {
      key: input.key,
      value: input.value,
      id,
      expiresIn,
      expiresOn,
      createdAt,
      updatedAt,
    };
    storeWrite(this.db, 'the config entry', () => this.write.run(PREFIX + input.key, JSON.stringify(entry)));
    return entry;
  }
}

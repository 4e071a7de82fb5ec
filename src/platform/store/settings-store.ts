/**
 * The device's persistent settings in the store's `settings` table: the hostname the API reports
 * (the machine is never renamed) and the overrides of the device configuration (the sparse
 * document PATCH /system/config builds up; defaults fill the rest).
 */
import { hostname as osHostname } from 'node:os';
import type { Db } from './database.js';
import { storeWrite } from './storage-errors.js';
import { ensureTables } from './migrations.js';

const HOSTNAME_KEY = 'device.hostname';
const CONFIG_KEY = 'device.config';

/** RFC 1123 host name: dot-separated labels of letters, digits and inner hyphens, each 1..63, total ≤ 253. */
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;

export function isValidHostname(name: string): boolean {
  return name.length > 0 && name.length <= 253 && name.split('.').every((label) => LABEL.test(label));
}

/** The default hostname: the machine's own when it is a valid RFC 1123 name, else `headset`. */
export function defaultHostname(): string {
  const name = osHostname();
  return isValidHostname(name) ? name : 'headset';
}

export class SettingsStore {
  private readonly db: Db;
  private readonly read;
  private readonly write;
  private readonly remove;
  /**
   * The hostname, read once: the health record and GET /system/hostname report it (it once went
   * into every request's Host check, where a SQLite read per request was the API's hottest line).
   * Only this store writes it (the service makes one SettingsStore and hands it to every plugin).
   */
  private hostnameCache: string | undefined;

  constructor(db: Db) {
    ensureTables(db);
    this.db = db;
    this.read = db.prepare('SELECT value FROM settings WHERE key = ?');
    this.write = db.prepare(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    );
    this.remove = db.prepare('DELETE FROM settings WHERE key = ?');
  }

  private get(key: string): unknown {
    const row = this.read.get(key) as { value: string } | undefined;
    if (row === undefined) return undefined;
    try {
      return JSON.parse(row.value) as unknown;
    } catch {
      return undefined;
    }
  }

  /** The hostname answered by GET /system/hostname (and accepted in `Host` headers). */
  hostname(): string {
    if (this.hostnameCache === undefined) {
      const stored = this.get(HOSTNAME_KEY);
      this.hostnameCache = typeof stored === 'string' && isValidHostname(stored) ? stored : defaultHostname();
    }
    return this.hostnameCache;
  }

  /** Stores a hostname the caller has validated. */
  setHostname(name: string): void {
    storeWrite(this.db, 'the hostname', () => this.write.run(HOSTNAME_KEY, JSON.stringify(name)));
    this.hostnameCache = undefined;
  }

  /** The configuration overrides (a JSON object), `{}` when none were stored. */
  configOverrides(): Record<string, unknown> {
    const stored = this.get(CONFIG_KEY);
    return stored !== null && typeof stored === 'object' && !Array.isArray(stored)
      ? (stored as Record<string, unknown>)
      : {};
  }

  setConfigOverrides(overrides: Record<string, unknown>): void {
    storeWrite(this.db, 'the configuration', () =>
      Object.keys(overrides).length === 0
        ? this.remove.run(CONFIG_KEY)
        : this.write.run(CONFIG_KEY, JSON.stringify(overrides)),
    );
  }
}

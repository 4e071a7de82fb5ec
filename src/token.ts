/**
 * The API token for listening beyond loopback (API-NOTES.md §Security defaults): generated once
 * into `<data-dir>/token` with mode 0600, so only the device's owner can read it.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export function tokenPath(dataDir: string): string {
  return path.join(dataDir, 'token');
}

/** Reads the token, creating it when absent; `created` tells whether it is new. */
export function ensureToken(dataDir: string): { token: string; created: boolean } {
  const file = tokenPath(dataDir);
  try {
    const token = readFileSync(file, 'utf8').trim();
    if (token.length >= 32) return { token, created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dataDir, { recursive: true });
  const token = randomBytes(32).toString('base64url');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { token, created: true };
}

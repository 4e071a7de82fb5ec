/**
 * The API token for listening beyond loopback (docs/api.md §Security): generated once
 * into `<data-dir>/token` with mode 0600, so only the device's owner can read it.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';

export function tokenPath(dataDir: string): string {
  return path.join(dataDir, 'token');
}

/** Shorter content is not a token headsetd made: it is replaced at start, and ignored while running. */
const MIN_TOKEN_LENGTH = 32;

function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Writes `token` to the file atomically (a temporary file with mode 0600, renamed over the old
 * one): a reader sees the old token or the new one, never a half-written file.
 */
function writeToken(dataDir: string, token: string): void {
  mkdirSync(dataDir, { recursive: true });
  const file = tokenPath(dataDir);
  const temporary = `${file}.${String(process.pid)}.tmp`;
  writeFileSync(temporary, `${token}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
}

/** Reads the token, creating it when absent; `created` tells whether it is new. */
export function ensureToken(dataDir: string): { token: string; created: boolean } {
  const file = tokenPath(dataDir);
  try {
    const token = readFileSync(file, 'utf8').trim();
    if (token.length >= MIN_TOKEN_LENGTH) return { token, created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const token = newToken();
  writeToken(dataDir, token);
  return { token, created: true };
}

/**
 * Replaces the token with a new one (`headsetd token rotate`). A running service reads the file at
 * each request (currentToken), so from the next request on only the new token is accepted.
 */
export function rotateToken(dataDir: string): string {
  const token = newToken();
  writeToken(dataDir, token);
  return token;
}

interface CachedToken {
  readonly ino: number;
  readonly mtimeMs: number;
  readonly size: number;
  readonly token: string;
}

const cache = new Map<string, CachedToken>();

/**
 * The token in `file` now. The file is read again only when its identity, size or modification
 * time changed (a stat per request, not a read). While it is missing, unreadable or holds no
 * token, the last token read from it stays in force, else `fallback`: deleting the file never
 * opens the service.
 */
export function currentToken(file: string, fallback: string | undefined): string | undefined {
  const known = cache.get(file);
  try {
    const stat = statSync(file);
    if (known?.ino === stat.ino && known.mtimeMs === stat.mtimeMs && known.size === stat.size)
      return known.token;
    const token = readFileSync(file, 'utf8').trim();
    if (token.length < MIN_TOKEN_LENGTH) return known?.token ?? fallback;
    cache.set(file, { ino: stat.ino, mtimeMs: stat.mtimeMs, size: stat.size, token });
    return token;
  } catch {
    return known?.token ?? fallback;
  }
}

/**
 * Tells the owner where a new token is. The token itself is written only to a terminal: stderr
 * redirected to a file or a service manager's journal would keep a secret in the logs, so there
 * only the file is named (`headsetd token` prints it).
 */
export function announceCreatedToken(
  token: string,
  file: string,
  terminal: { isTTY?: boolean; write(text: string): unknown },
  logger: Pick<Logger, 'warn'>,
): void {
  if (terminal.isTTY === true) {
    terminal.write(
      `headsetd: listening beyond loopback needs a token; it was created in ${file}:\n${token}\n`,
    );
    return;
  }
  logger.warn(
    { tokenFile: file },
    `listening beyond loopback needs the API token; it was created in ${file} (print it with 'headsetd token')`,
  );
}

/**
 * The API token for listening beyond loopback (docs/api.md §Security): generated once
 * into `<data-dir>/token` with mode 0600, so only the device's owner can read it.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';

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

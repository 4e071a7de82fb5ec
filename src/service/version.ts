/** The service's version, read from its package.json (one source of truth). */
import { readFileSync } from 'node:fs';

function readVersion(): string {
  // src/service/version.ts and dist/service/version.js both sit two levels below the package root.
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

export const VERSION = readVersion();

/** The service's version, read from its package.json (one source of truth). */
import { readFileSync } from 'node:fs';

function readVersion(): string {
  // src/version.ts and dist/version.js both sit one level below the package root.
  const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

export const VERSION = readVersion();

/**
 * Where the service is and how to authenticate to it: `--url` or `HEADSETD_URL` (default
 * http://127.0.0.1:42069), `--token` or `HEADSETD_TOKEN`; without a token, a service on this
 * machine is asked with the token file of its data directory when there is one (the same file
 * `headsetd serve` creates), so a local user never copies it by hand.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from './failures.js';

export const DEFAULT_URL = 'http://127.0.0.1:42069';

export interface Connection {
  /** The base address, without a trailing slash. */
  url: string;
  token: string | undefined;
}

export interface ConnectionInputs {
  url?: string | undefined;
  token?: string | undefined;
  dataDir?: string | undefined;
  env: NodeJS.ProcessEnv;
  /** Where `headsetd serve` keeps its data when no --data-dir is given. */
  defaultDataDir: string;
  /** The working directory, which a relative data directory is in. */
  cwd: string;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** Whether a URL names this machine (where the service's data directory can be read). */
export function isLocal(url: URL): boolean {
  return (
    LOOPBACK_HOSTS.has(url.hostname) ||
    /^127\.\d+\.\d+\.\d+$/.test(url.hostname) ||
    // IPv4-mapped loopback, as the URL parser writes it ([::ffff:127.0.0.1] → [::ffff:7f00:1]).
    /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(url.hostname)
  );
}

function baseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text.includes('://') ? text : `http://${text}`);
  } catch {
    throw new UsageError(`--url: ${JSON.stringify(text)} is not a URL (e.g. http://127.0.0.1:42069)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--url: ${JSON.stringify(text)} must be an http:// or https:// address`);
  return url;
}

/** The token file's content, or undefined when it is absent or unreadable (no token is then sent). */
function tokenFromDataDir(dataDir: string): string | undefined {
  try {
    const token = readFileSync(path.join(dataDir, 'token'), 'utf8').trim();
    return token === '' ? undefined : token;
  } catch {
    return undefined;
  }
}

export function resolveConnection(inputs: ConnectionInputs): Connection {
  const url = baseUrl(inputs.url ?? inputs.env.HEADSETD_URL ?? DEFAULT_URL);
  const given = inputs.token ?? inputs.env.HEADSETD_TOKEN;
  const dataDir = inputs.dataDir ?? inputs.env.HEADSETD_DATA_DIR ?? inputs.defaultDataDir;
  const token =
    given !== undefined && given !== ''
      ? given
      : isLocal(url)
        ? tokenFromDataDir(path.resolve(inputs.cwd, dataDir))
        : undefined;
  return { url: url.href.replace(/\/+$/, ''), token };
}

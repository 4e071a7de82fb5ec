/**
 * Where the service keeps its data when no --data-dir is given: `headsetd serve` puts it there, and
 * a client command reads the token there. A module of its own so that a client command loads no
 * more of the settings than this.
 */
import { homedir } from 'node:os';
import path from 'node:path';

export function defaultDataDir(): string {
  const base = process.env.XDG_DATA_HOME ?? path.join(homedir(), '.local', 'share');
  return path.join(base, 'headsetd');
}

#!/usr/bin/env node
/**
 * The `headsetd` command (docs/cli.md). The client commands that drive a running service
 * (src/client/) run from here; `serve`, `validate`, `token`, `--help` and `--version` are
 * service/command.ts, imported only for them. A client command is started often, by people and by
 * scripts, and is done in one request: it loads the client and nothing of the service (in the
 * build, this file and the client are one small bundle, dist/headsetd.cjs, and the service's
 * commands another, dist/headsetd-service.cjs: scripts/bundle.mjs).
 */
import { readFileSync } from 'node:fs';
import { clientGroup, runClient } from './client/index.js';
import { reportFailure } from './client/failures.js';
import { defaultDataDir } from './service/data-dir.js';

async function main(argv: string[]): Promise<number> {
  if (clientGroup(argv) !== undefined) {
    return runClient(argv, {
      env: process.env,
      stdout: process.stdout,
      stderr: process.stderr,
      readStdin: () => readFileSync(0, 'utf8'),
      cwd: process.cwd(),
      defaultDataDir: defaultDataDir(),
    });
  }
  const { runServiceCommand } = await import('./service/command.js');
  return runServiceCommand(argv);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    process.exitCode = reportFailure(error, process.stderr);
  },
);

/**
 * What a client command is (its name, usage, options and help) and what it is handed when it
 * runs. Every command takes the global options; `--help` prints its own help.
 */
import type { ParseArgsConfig } from 'node:util';
import type { ApiClient } from './http.js';
import type { Output } from './output.js';

export type Options = NonNullable<ParseArgsConfig['options']>;

/** The options every client command takes, before or after its name. */
export const GLOBAL_OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  'data-dir': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

export const GLOBAL_HELP = `Global options (any client command):
  --url URL         the service (default http://127.0.0.1:42069; env HEADSETD_URL)
  --token TOKEN     the API token (env HEADSETD_TOKEN); for a service on this machine the
                    token file of its data directory is used when none is given
  --data-dir DIR    that data directory (default as 'headsetd serve': ~/.local/share/headsetd)
  --json            output for scripts: one JSON document (NDJSON, one per line, when following)
  -h, --help        the command's help
Exit codes: 0 done, 1 the service refused (its message and pointer on stderr), 2 usage error,
3 the service cannot be reached or the connection was lost, 130 interrupted.`;

export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

export interface Invocation {
  values: Values;
  positionals: string[];
  client: ApiClient;
  out: Output;
  /** Aborted at the first Ctrl-C: follow and watch modes end there, long operations are cancelled. */
  signal: AbortSignal;
  /** The absolute path of a file named on the command line, relative to the working directory. */
  resolvePath: (name: string) => string;
  /** All of standard input (a file named `-`). */
  readStdin: () => string;
}

export interface Command {
  /** The words after `headsetd`, e.g. `streams apply`. */
  name: string;
  /** The arguments after the name, e.g. `-f FILE`. */
  args?: string;
  summary: string;
  /** What the command prints and the options it takes, for `--help`. */
  help?: string;
  options?: Options;
  /** How many positional arguments it takes. */
  positionals?: { min: number; max: number; names?: string };
  run(invocation: Invocation): Promise<number | undefined>;
}

export interface Group {
  name: string;
  summary: string;
  commands: readonly Command[];
}

/** A string option's value, if given. */
export function stringOption(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** A repeatable or comma-listed option (`--channels O1,O2 --channels CZ`). */
export function listOption(values: Values, name: string): string[] | undefined {
  const value = values[name];
  const items = (Array.isArray(value) ? value : typeof value === 'string' ? [value] : [])
    .filter((item): item is string => typeof item === 'string')
    .flatMap((item) => item.split(','))
    .map((item) => item.trim())
    .filter((item) => item !== '');
  return items.length === 0 ? undefined : items;
}

export function commandHelp(command: Command): string {
  const usage = `Usage: headsetd ${command.name}${command.args === undefined ? '' : ` ${command.args}`}`;
  return [
    usage,
    '',
    command.summary,
    ...(command.help === undefined ? [] : ['', command.help.trimEnd()]),
    '',
    GLOBAL_HELP,
    '',
  ].join('\n');
}

export function groupHelp(group: Group): string {
  const rows = group.commands.map((c) => [
    `headsetd ${c.name}${c.args === undefined ? '' : ` ${c.args}`}`,
    c.summary,
  ]);
  const width = Math.max(...rows.map(([usage]) => (usage ?? '').length));
  return [
    `headsetd ${group.name}: ${group.summary}`,
    '',
    'Usage:',
    ...rows.map(([usage, summary]) => `  ${(usage ?? '').padEnd(width)}  ${summary ?? ''}`),
    '',
    `Run 'headsetd ${group.name} COMMAND --help' for a command's options.`,
    '',
    GLOBAL_HELP,
    '',
  ].join('\n');
}

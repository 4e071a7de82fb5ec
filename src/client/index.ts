/**
 * The client commands of `headsetd` (docs/cli.md): they drive a running service through its API.
 * `runClient` finds the command in the arguments, parses its options, connects, runs it and turns
 * every failure into a message and an exit code (failures.ts).
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  type Command,
  commandHelp,
  GLOBAL_OPTIONS,
  type Group,
  groupHelp,
  type Options,
  stringOption,
} from './command.js';
import { resolveConnection } from './connection.js';
import { ApiError, ConnectionError, describeApiError, EXIT, UsageError } from './failures.js';
import { ApiClient } from './http.js';
import { Output, type Stream } from './output.js';
import { streamsGroup } from './commands/streams.js';
import { eegGroup } from './commands/eeg.js';
import { impedanceGroup } from './commands/impedance.js';
import { seatGroup } from './commands/seat.js';
import { motorsGroup } from './commands/motors.js';
import { recordGroup } from './commands/record.js';
import { recordingsGroup } from './commands/recordings.js';
import { eventsGroup } from './commands/events.js';
import { errorMessage } from '../core/error-message.js';

export const GROUPS: readonly Group[] = [
  streamsGroup,
  eegGroup,
  impedanceGroup,
  seatGroup,
  motorsGroup,
  recordGroup,
  recordingsGroup,
  eventsGroup,
];

/** The lines of `headsetd --help` that list the client commands. */
export function clientHelp(): string {
  const rows = GROUPS.map((group) => [
    `headsetd ${group.name}${group.commands.length > 1 ? ` ${[...new Set(group.commands.map((c) => c.name.split(' ')[1]))].join('|')}` : ''}`,
    group.summary,
  ]);
  return [
    'Client commands (drive a running service; --url, --token, --json; each has --help):',
    ...rows.map(([usage, summary]) => `  ${usage ?? ''}\n      ${summary ?? ''}`),
  ].join('\n');
}

const VALUE_OPTIONS = new Set(
  Object.entries(GLOBAL_OPTIONS)
    .filter(([, option]) => option.type === 'string')
    .map(([name]) => `--${name}`),
);

/** The index of the first word that is not an option or a global option's value, or -1. */
function firstWord(argv: readonly string[], from = 0): number {
  for (let i = from; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--') return i + 1 < argv.length ? i + 1 : -1;
    if (arg.startsWith('-')) {
      if (VALUE_OPTIONS.has(arg)) i++;
      continue;
    }
    return i;
  }
  return -1;
}

/** The client command group the arguments name, if any. */
export function clientGroup(argv: readonly string[]): Group | undefined {
  const index = firstWord(argv);
  return index < 0 ? undefined : GROUPS.find((group) => group.name === argv[index]);
}

/**
 * What a client command reads of the process it runs in, handed in (src/cli.ts hands the
 * process's own): nothing in the client reads `process` for these, so a command also runs inside
 * another process (the tests') exactly as a user's does.
 */
export interface ClientEnvironment {
  env: NodeJS.ProcessEnv;
  stdout: Stream;
  stderr: Stream;
  /** All of standard input, read when a command is given `-` as its file (`streams apply -f -`). */
  readStdin: () => string;
  /** The working directory, which relative file names are in (`-f FILE`, `-o FILE`, `--data-dir`). */
  cwd: string;
  /** Where `headsetd serve` keeps its data when no --data-dir is given. */
  defaultDataDir: string;
  /**
   * What Ctrl-C does, for a caller that runs commands in its own process: once aborted, the command
   * ends as at a first Ctrl-C (a follow or a watch ends with 0, a long operation is cancelled and
   * the command exits 130). When it is given, the process's SIGINT is left to the caller; without
   * it, runClient listens for SIGINT while the command runs (and a second Ctrl-C exits at once).
   */
  signal?: AbortSignal;
}

function usageError(message: string, help: string): UsageError {
  return new UsageError(`${message}\nRun '${help} --help' for usage.`);
}

/** The command and its own arguments (the words naming it removed). */
function findCommand(
  group: Group,
  argv: readonly string[],
): { command: Command | undefined; args: string[] } {
  const groupIndex = firstWord(argv);
  const rest = argv.filter((_, i) => i !== groupIndex);
  const single = group.commands.length === 1 ? group.commands[0] : undefined;
  if (single !== undefined && single.name === group.name) return { command: single, args: rest };
  const actionIndex = firstWord(rest);
  if (actionIndex < 0) return { command: undefined, args: rest };
  const name = `${group.name} ${rest[actionIndex] ?? ''}`;
  const command = group.commands.find((c) => c.name === name);
  if (command === undefined) throw usageError(`unknown command '${name}'.`, `headsetd ${group.name}`);
  return { command, args: rest.filter((_, i) => i !== actionIndex) };
}

/**
 * `--token VALUE` passed to the parser as `--token=VALUE`: a token is opaque, and one in 64 of the
 * service's (base64url) begins with '-', which the parser refuses as ambiguous in the separate form
 * (as it would be a forgotten value before the next option). A word that is an option of the
 * command is left to the parser, which then reports the missing value.
 */
function joinTokenValue(args: readonly string[], options: Options): string[] {
  const isOption = (word: string): boolean =>
    word.startsWith('--')
      ? Object.hasOwn(options, word.slice(2).split('=')[0] ?? '')
      : Object.values(options).some((option) => 'short' in option && word === `-${option.short}`);
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i] ?? '';
    // After `--` every word is a positional.
    if (word === '--') return [...joined, ...args.slice(i)];
    const next = args[i + 1];
    if (word === '--token' && next !== undefined && !isOption(next)) {
      joined.push(`--token=${next}`);
      i++;
    } else joined.push(word);
  }
  return joined;
}

async function run(
  group: Group,
  argv: readonly string[],
  environment: ClientEnvironment,
  controller: AbortController,
): Promise<number> {
  const { command, args } = findCommand(group, argv);
  if (command === undefined) {
    const asked = argv.includes('--help') || argv.includes('-h');
    (asked ? environment.stdout : environment.stderr).write(groupHelp(group));
    return asked ? EXIT.ok : EXIT.usage;
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    const options = { ...GLOBAL_OPTIONS, ...command.options };
    parsed = parseArgs({
      args: joinTokenValue(args, options),
      options,
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw usageError(errorMessage(error), `headsetd ${command.name}`);
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    environment.stdout.write(commandHelp(command));
    return EXIT.ok;
  }
  const range = command.positionals ?? { min: 0, max: 0 };
  if (positionals.length < range.min)
    throw usageError(
      `headsetd ${command.name} needs ${command.args ?? 'arguments'}.`,
      `headsetd ${command.name}`,
    );
  if (positionals.length > range.max)
    throw usageError(
      `headsetd ${command.name}: unexpected argument '${positionals[range.max] ?? ''}'.`,
      `headsetd ${command.name}`,
    );
  const { cwd } = environment;
  const connection = resolveConnection({
    url: stringOption(values, 'url'),
    token: stringOption(values, 'token'),
    dataDir: stringOption(values, 'data-dir'),
    env: environment.env,
    defaultDataDir: environment.defaultDataDir,
    cwd,
  });
  const out = new Output(environment.stdout, environment.stderr, values.json === true, environment.env);
  const client = new ApiClient(connection);
  try {
    const code = await command.run({
      values,
      positionals,
      client,
      out,
      signal: controller.signal,
      resolvePath: (name) => path.resolve(cwd, name),
      readStdin: environment.readStdin,
    });
    return code ?? EXIT.ok;
  } finally {
    client.close();
  }
}

/**
 * Runs a client command; resolves with the exit code. The first Ctrl-C (SIGINT, or the abort of
 * the environment's signal) aborts the command's signal (a follow ends, a long operation is
 * cancelled); a second SIGINT exits at once. Its SIGINT listener is removed when it returns.
 * Errors no command turns into an exit code are thrown: reportFailure (failures.ts) reports them.
 */
export async function runClient(argv: readonly string[], environment: ClientEnvironment): Promise<number> {
  const group = clientGroup(argv);
  if (group === undefined) throw new Error('runClient: no client command in the arguments');
  const controller = new AbortController();
  const onInterrupt = (): void => {
    if (controller.signal.aborted) process.exit(EXIT.interrupted);
    controller.abort();
  };
  const interrupt = (): void => {
    controller.abort();
  };
  const external = environment.signal;
  if (external === undefined) process.on('SIGINT', onInterrupt);
  else if (external.aborted) controller.abort();
  else external.addEventListener('abort', interrupt, { once: true });
  // A reader that went away (`headsetd streams logs ID NODE -f | head -3`) ends the command as
  // Ctrl-C does, with no trace: what it would still write has no one to read it.
  const onOutputError = (error: NodeJS.ErrnoException): void => {
    if (error.code !== 'EPIPE') throw error;
    controller.abort();
  };
  environment.stdout.on('error', onOutputError);
  const jsonMode = argv.includes('--json');
  try {
    return await run(group, argv, environment, controller);
  } catch (error) {
    if (error instanceof UsageError) {
      environment.stderr.write(`headsetd: ${error.message}\n`);
      return EXIT.usage;
    }
    if (error instanceof ApiError) {
      if (jsonMode) environment.stdout.write(`${JSON.stringify(error.envelope, null, 2)}\n`);
      environment.stderr.write(`headsetd: ${describeApiError(error).join('\n')}\n`);
      return EXIT.api;
    }
    if (error instanceof ConnectionError) {
      environment.stderr.write(`headsetd: ${error.message}\n`);
      return EXIT.connection;
    }
    if (controller.signal.aborted) {
      environment.stderr.write('headsetd: interrupted\n');
      return EXIT.interrupted;
    }
    throw error;
  } finally {
    process.off('SIGINT', onInterrupt);
    external?.removeEventListener('abort', interrupt);
    environment.stdout.off('error', onOutputError);
  }
}

/**
 * Every example of docs/cli.md is what the CLI prints. The page showed an error message the CLI
 * never printed (two lines for a fault it reports once, "connection refused" for a port fetch
 * refuses as "bad port"); here each ```console block of the page is run, in order, against a
 * real service on the simulated headset, in a directory holding the page's own ```yaml files.
 *
 * Compared line by line, after the parts that differ from run to run are blanked (numbers, ids,
 * times, bars, runs of spaces): the words of every message, table header and state must be the
 * CLI's. A line `…` stands for any lines. `$ echo $?` is the exit code of the command before. A
 * command that follows (`-f`, `eeg watch`, `events`) is stopped once the lines shown have come.
 *
 * The sections on seating and motors run on a second service, beside the rest of the page: the
 * seating example drives the electrodes from retracted to the scalp on the device's own time
 * (some 24 s), while nothing else of the page touches the motors, and their jobs would hold the
 * impedance meter the rest of the page uses. Each part runs its examples in the page's order.
 *
 * The commands run in the test's process (test/support/client-cli.ts), but for those whose exit
 * code the page shows (`$ echo $?` after them): what the shell sees is the program's, so they
 * start dist/headsetd.mjs, the built program end to end.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { followCli, runCli, spawnCli } from '../support/client-cli.js';
import { json, ROOT, type Service, startService } from '../support/service.js';
import { eventually } from '../support/wait.js';
import { scratchDir } from '../support/scratch.js';

interface Example {
  /** The command line after `$ `. */
  command: string;
  /** The lines shown after it. */
  output: string[];
  /** 1-based line of the command in the page. */
  line: number;
  /** The `## ` heading of the section it is in. */
  section: string;
}

const PAGE = readFileSync(path.join(ROOT, 'docs', 'cli.md'), 'utf8');

/** The ```console blocks as examples, and the ```yaml files the text names (`sine.yaml`). */
function parse(page: string): { examples: Example[]; files: Map<string, string> } {
  const examples: Example[] = [];
  const files = new Map<string, string>();
  const lines = page.split('\n');
  let fence: string | undefined;
  let body: string[] = [];
  let named: string | undefined;
  let section = '';
  lines.forEach((text, i) => {
    if (fence === undefined) {
      if (text.startsWith('## ')) section = text.slice(3).trim();
      const opening = /^```(\w+)/.exec(text);
      if (opening !== null) {
        fence = opening[1];
        body = [];
        return;
      }
      const name = /`([\w-]+\.yaml)`.*:\s*$/.exec(text);
      if (name !== null) named = name[1];
      else if (text.trim() !== '') named = undefined;
      return;
    }
    if (text.startsWith('```')) {
      if (fence === 'yaml' && named !== undefined) files.set(named, `${body.join('\n')}\n`);
      fence = undefined;
      named = undefined;
      return;
    }
    body.push(text);
    if (fence !== 'console') return;
    if (text.startsWith('$ ')) examples.push({ command: text.slice(2), output: [], line: i + 1, section });
    else examples.at(-1)?.output.push(text);
  });
  return { examples, files };
}

/** A shell-like split: spaces separate, double quotes group. */
function words(command: string): string[] {
  return [...command.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '');
}

/** The line with what changes from run to run blanked. */
function shape(text: string): string {
  return text
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z/g, '<time>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')
    .replace(/\[[█░]+\]/g, '<bar>')
    .replace(/127\.0\.0\.1:\d+/g, '<host>')
    .replace(/-?\d+(\.\d+)?/g, '#')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Whether `actual` is `expected`, a `…` line standing for any lines (none included). */
function matches(expected: readonly string[], actual: readonly string[]): boolean {
  const [first, ...rest] = expected;
  if (first === undefined) return actual.length === 0;
  if (first.trim() === '…') {
    for (let skip = 0; skip <= actual.length; skip++) if (matches(rest, actual.slice(skip))) return true;
    return false;
  }
  return actual.length > 0 && shape(first) === shape(actual[0] ?? '') && matches(rest, actual.slice(1));
}

const lines = (text: string) => (text === '' ? [] : text.replace(/\n$/, '').split('\n'));

/** The sections whose examples run on a service of their own (the motors' part of the page). */
const MOTOR_SECTIONS = new Set(['Seating the electrodes', 'Motors']);

let service: Service;
let motorService: Service;
let dir: string;
beforeAll(async () => {
  [service, motorService] = await Promise.all([
    startService({ args: ['--seed', '7'] }),
    startService({ args: ['--seed', '7'] }),
  ]);
  dir = scratchDir('headsetd-cli-docs');
});
afterAll(async () => {
  await Promise.all([service.stop(), motorService.stop()]);
});

/** Runs a command that follows until `wanted` stdout lines have come (and `during` ran), then Ctrl-C. */
async function follow(
  args: string[],
  wanted: number,
  during: () => Promise<void>,
): Promise<{ stdout: string; stderr: string }> {
  const follower = followCli(args, { cwd: dir });
  // Started: its first output, on either stream.
  await follower.until(() => follower.stdout() !== '' || follower.stderr() !== '');
  await during();
  // The lines wanted, or the command ending by itself with fewer (which the comparison then shows).
  await Promise.race([follower.until(() => lines(follower.stdout()).length >= wanted), follower.exited]);
  follower.interrupt();
  await follower.exited;
  return { stdout: lines(follower.stdout()).slice(0, wanted).join('\n'), stderr: follower.stderr() };
}

/** What must happen on the service (its URL) while a follower runs for it to print what the page shows. */
const DURING: Record<string, (url: string) => Promise<void>> = {
  events: async (url) => {
    await runCli(['--url', url, 'eeg', 'start']);
    await runCli(['--url', url, 'eeg', 'stop']);
  },
};

/**
 * What must have happened on the service before a command that does not follow prints what the
 * page shows: `streams logs ID NODE` shows the lines the node has logged, waited for on the API
 * (a command started as a process was slow enough to start that they were there; one run in the
 * test's process reads the log at once).
 */
async function ready(args: readonly string[], shown: number, url: string): Promise<void> {
  const [group, action, id, node] = args;
  if (group !== 'streams' || action !== 'logs' || id === undefined || node === undefined) return;
  await eventually(async () => {
    const { body } = await json(`${url}/stream/streams/${id}/nodes/${node}/logs`);
    return (body?.logs?.length ?? 0) >= shown;
  });
}

function isFollower(args: readonly string[]): boolean {
  return (
    (args[0] === 'streams' && args[1] === 'logs' && args.includes('-f')) ||
    (args[0] === 'eeg' && args[1] === 'watch' && !args.includes('--count')) ||
    (args[0] === 'events' && !args.includes('--count'))
  );
}

/** Runs `examples` one after the other against the service at `url`, each compared with the page. */
async function runExamples(examples: readonly Example[], url: string): Promise<void> {
  let status: number | null = null;
  for (const [index, example] of examples.entries()) {
    const where = `docs/cli.md:${example.line} $ ${example.command}`;
    if (example.command === 'echo $?') {
      expect(String(status), where).toBe(example.output[0]);
      continue;
    }
    const [program, ...rest] = words(example.command.replace(/\s*>\s*(\S+)$/, ''));
    expect(program, where).toBe('headsetd');
    const redirect = /\s>\s*(\S+)$/.exec(example.command)?.[1];
    const args = rest.includes('--url') ? rest : ['--url', url, ...rest];
    let result: { stdout: string; stderr: string };
    if (isFollower(rest)) {
      const shown = example.output.filter((l) => l.trim() !== '…').length;
      const during = DURING[rest[0] ?? ''];
      result = await follow(args, rest[0] === 'events' ? shown - 1 : shown, () =>
        during === undefined ? Promise.resolve() : during(url),
      );
      status = 0;
    } else {
      await ready(rest, example.output.filter((l) => l.trim() !== '…').length, url);
      // The exit code the page shows is the program's: started as a process.
      const shell = examples[index + 1]?.command === 'echo $?';
      const ran = await (shell ? spawnCli : runCli)(args, { cwd: dir });
      result = ran;
      status = ran.status;
      if (redirect !== undefined) {
        writeFileSync(path.join(dir, redirect), ran.stdout);
        result = { stdout: '', stderr: ran.stderr };
      }
    }
    const out = lines(result.stdout);
    const err = lines(result.stderr);
    const either = matches(example.output, [...out, ...err]) || matches(example.output, [...err, ...out]);
    expect(
      either,
      `${where}\n--- the page shows\n${example.output.join('\n')}\n--- the CLI printed\n${[...out, ...err].join('\n')}`,
    ).toBe(true);
  }
}

test('every example of docs/cli.md is the output of the CLI (the page showed a message it never printed)', async () => {
  const { examples, files } = parse(PAGE);
  expect(files.has('sine.yaml') && files.has('bad.yaml')).toBe(true);
  for (const [name, text] of files) writeFileSync(path.join(dir, name), text);
  expect(examples.length).toBeGreaterThan(20);
  const motors = examples.filter((e) => MOTOR_SECTIONS.has(e.section));
  // Both parts are on the page (a renamed heading would leave the motors' part empty).
  expect(motors.map((e) => e.section)).toEqual(expect.arrayContaining([...MOTOR_SECTIONS]));
  // Both parts to their end, then the first failure (the other part's commands would otherwise
  // run on after the test, against services being stopped).
  const parts = await Promise.allSettled([
    runExamples(
      examples.filter((e) => !MOTOR_SECTIONS.has(e.section)),
      service.url,
    ),
    runExamples(motors, motorService.url),
  ]);
  for (const part of parts) if (part.status === 'rejected') throw part.reason;
  // Some thirty programs, each part's one after the other: a deadline for a stuck run on a busy machine.
}, 300_000);

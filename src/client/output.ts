/**
 * Where a command writes, and how: human text (colours only on a terminal and never with
 * NO_COLOR) or, with `--json`, one JSON document (or one per line for the follow and watch modes).
 * stdout carries the result; stderr the messages for a person (errors, hints, progress).
 */
import { styleText } from 'node:util';

export type Style = Parameters<typeof styleText>[0];
type StyleText = (format: Style, text: string, options?: { validateStream?: boolean }) => string;

/**
 * stdout or stderr: a writable stream (a download to `-o -` is piped into stdout), a terminal
 * when `isTTY` is true.
 */
export interface Stream extends NodeJS.WritableStream {
  isTTY?: boolean;
  columns?: number;
}

export class Output {
  readonly color: boolean;

  constructor(
    readonly stdout: Stream,
    readonly stderr: Stream,
    readonly json: boolean,
    env: NodeJS.ProcessEnv,
  ) {
    this.color =
      stdout.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '') && env.TERM !== 'dumb';
  }

  /** Whether the result goes to a terminal a view can redraw in place. */
  get tty(): boolean {
    return this.stdout.isTTY === true;
  }

  style(format: Style, text: string): string {
    // Whether to colour is decided here (the stream this output writes to, NO_COLOR), not by
    // styleText's own check of process.stdout in newer Node versions.
    return this.color ? (styleText as StyleText)(format, text, { validateStream: false }) : text;
  }

  line(text = ''): void {
    this.stdout.write(`${text}\n`);
  }

  /** The one JSON document of a command run with --json. */
  document(value: unknown): void {
    this.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  /** One line of NDJSON (follow and watch modes with --json). */
  record(value: unknown): void {
    this.stdout.write(`${JSON.stringify(value)}\n`);
  }

  /** A message for a person, on stderr. */
  note(text: string): void {
    this.stderr.write(`${text}\n`);
  }
}

/**
 * The argument of `--device lsl:<argument>`: which LSL stream to play, and options after a `?`.
 *
 *   lsl:type=EEG
 *   lsl:name=obci_eeg1
 *   lsl:sourceId=cyton-1234&type=EEG
 *   lsl:predicate=starts-with(name,'obci') and channel_count>=8
 *   lsl:name=obci_eeg1?channels=Fp1,Fp2,C3,C4,-,-,O1,O2&wait=30
 *
 * The query's keys are those of the `lsl-inlet` node (`name`, `type`, `sourceId` — `source_id` is
 * accepted too — and `predicate`, an XPath 1.0 expression over the stream's description as
 * liblsl's `resolve_bypred` takes it), joined by `&`; all must hold. An empty query is `type=EEG`.
 * Options: `channels`, the electrode each of the stream's channels is played as, in column order
 * (10-20 or 10-10 names; `-` or nothing for a channel not played), which replaces the stream's
 * labels; `wait`, seconds `open()` waits for the stream (default 10). `gap` (sample periods, more
 * than 1, at most 100) was the step between two stamps beyond which samples counted as lost; losses
 * are now judged from the stamps that follow a jump (timeline.ts), so it is still accepted, checked
 * as before so that a command line that worked keeps working, and has no effect.
 */
import { DeviceArgumentError } from '../errors.js';
import { queryProblem } from '../../lsl/query.js';
import { xpathLiteral, type StreamQuery } from '../../lsl/resolver.js';

export interface LslArgument {
  /** The query as the `lsl-inlet` node's config would hold it. */
  readonly query: StreamQuery;
  /** The electrode names given for each column (undefined: none), when `channels=` was given. */
  readonly channels: readonly (string | undefined)[] | undefined;
  /** How long `open()` waits for a matching stream, ms. */
  readonly waitMs: number;
}

export const DEFAULT_WAIT_S = 10;
const QUERY_KEYS = ['name', 'type', 'sourceId', 'source_id', 'predicate'] as const;
const QUERY_EXAMPLES: Record<(typeof QUERY_KEYS)[number], string> = {
  name: 'OpenBCI_EEG',
  type: 'EEG',
  sourceId: 'myuid1234',
  source_id: 'myuid1234',
  predicate: "starts-with(name,'OpenBCI')",
};
const OPTION_KEYS = ['channels', 'wait', 'gap'] as const;
/** `&` starts a new pair only before a known key: a predicate's literal may hold one. */
const QUERY_SPLIT = new RegExp(`&(?=(?:${QUERY_KEYS.join('|')})=)`);

function refuse(message: string, value: string): never {
  throw new DeviceArgumentError(message, { field: 'device', value: `lsl:${value}` });
}

/** Parses what follows `lsl:`; refuses, naming the part at fault, what it cannot use. */
export function parseLslArgument(argument: string): LslArgument {
  const mark = argument.indexOf('?');
  const queryText = (mark < 0 ? argument : argument.slice(0, mark)).trim();
  const optionText = mark < 0 ? '' : argument.slice(mark + 1);
  const query: { -readonly [K in keyof StreamQuery]: StreamQuery[K] } = {};
  for (const pair of queryText === '' ? [] : queryText.split(QUERY_SPLIT)) {
    const equals = pair.indexOf('=');
    const key = equals < 0 ? pair : pair.slice(0, equals).trim();
    const value = equals < 0 ? '' : pair.slice(equals + 1).trim();
    if (!(QUERY_KEYS as readonly string[]).includes(key) || equals < 0) {
      refuse(
        `--device lsl:${argument}: "${pair}" is not a query term; use name=…, type=…, sourceId=… or predicate=<XPath>, joined by &.`,
        argument,
      );
    }
    if (value === '') {
      refuse(
        `--device lsl:${argument}: ${key} has no value; give the stream's, e.g. lsl:${key}=${QUERY_EXAMPLES[key as (typeof QUERY_KEYS)[number]]} (or lsl alone for type=EEG).`,
        argument,
      );
    }
    const field = key === 'source_id' ? 'sourceId' : (key as keyof StreamQuery);
    if (query[field] !== undefined) refuse(`--device lsl:${argument}: ${field} is given twice.`, argument);
    if (field === 'predicate') {
      const problem = queryProblem(value);
      if (problem !== undefined) {
        refuse(`--device lsl:${argument}: the predicate ${value} is not XPath 1.0 (${problem}).`, argument);
      }
    } else {
      try {
        xpathLiteral(value);
      } catch (error) {
        refuse(`--device lsl:${argument}: ${(error as Error).message}.`, argument);
      }
    }
    query[field] = value;
  }
  if (Object.keys(query).length === 0) query.type = 'EEG';
  let channels: (string | undefined)[] | undefined;
  let waitMs = DEFAULT_WAIT_S * 1000;
  for (const pair of optionText === '' ? [] : optionText.split('&')) {
    const equals = pair.indexOf('=');
    const key = equals < 0 ? pair : pair.slice(0, equals).trim();
    const value = equals < 0 ? '' : pair.slice(equals + 1).trim();
    if (key === 'channels') {
      channels = value.split(',').map((name) => {
        const trimmed = name.trim();
        return trimmed === '' || trimmed === '-' ? undefined : trimmed;
      });
    } else if (key === 'wait') {
      const seconds = Number(value);
      if (value === '' || !Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) {
        refuse(
          `--device lsl:${argument}: wait must be seconds, more than 0 and at most 3600; got "${value}".`,
          argument,
        );
      }
      waitMs = seconds * 1000;
    } else if (key === 'gap') {
      const periods = Number(value);
      if (value === '' || !Number.isFinite(periods) || periods <= 1 || periods > 100) {
        refuse(
          `--device lsl:${argument}: gap must be sample periods, more than 1 and at most 100; got "${value}".`,
          argument,
        );
      }
    } else {
      refuse(
        `--device lsl:${argument}: unknown option "${key}" after ?; the options are ${OPTION_KEYS.join(', ')}.`,
        argument,
      );
    }
  }
  return { query, channels, waitMs };
}

/** The query in words, as a person would type it (`type=EEG&name=obci_eeg1`). */
export function describeQuery(query: StreamQuery): string {
  const parts: string[] = [];
  if (query.name !== undefined) parts.push(`name=${query.name}`);
  if (query.type !== undefined) parts.push(`type=${query.type}`);
  if (query.sourceId !== undefined) parts.push(`sourceId=${query.sourceId}`);
  if (query.predicate !== undefined) parts.push(`predicate=${query.predicate}`);
  return parts.join('&');
}

/**
 * YAML in and out for stream documents. YAML 1.2 core schema only: no custom tags, no merge keys,
 * one document per body, duplicate keys refused, and a cap on alias expansion so that a
 * "billion laughs" document is refused instead of exhausting memory.
 */
import { parseDocument, stringify, YAMLError } from 'yaml';
import { HeadsetdError } from '../errors.js';

/** Alias dereferences allowed per document: plenty for hand-written YAML, far below a bomb. */
const MAX_ALIAS_COUNT = 100;

function positionOf(error: YAMLError): { line?: number; column?: number } {
  const pos = error.linePos?.[0];
  return pos === undefined ? {} : { line: pos.line, column: pos.col };
}

/** Parses one YAML document; malformed text is a 400 with the parser's message, line and column. */
export function parseYaml(text: string): unknown {
  const document = parseDocument(text, {
    version: '1.2',
    schema: 'core',
    merge: false,
    uniqueKeys: true,
    prettyErrors: true,
    customTags: [],
    strict: true,
  });
  const error = document.errors[0];
  if (error !== undefined) {
    const { line, column } = positionOf(error);
    const where = line === undefined ? '' : ` at line ${line}, column ${column ?? 0}`;
    throw new HeadsetdError(
      'invalid_request',
      `The YAML body is malformed${where}: ${(error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '')}`,
      {
        ...(line === undefined ? {} : { line, column }),
      },
    );
  }
  try {
    return document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    throw new HeadsetdError('invalid_request', `The YAML body is refused: ${message}`, {});
  }
}

export function toYaml(value: unknown): string {
  return stringify(value, { version: '1.2', aliasDuplicateObjects: false, lineWidth: 0 });
}

export { YAMLError };

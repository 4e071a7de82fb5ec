/**
 * YAML in and out for stream documents. YAML 1.2 core schema only: no custom or 1.1 tags, no merge keys,
 * one document per body, duplicate keys refused, the nesting bound of JSON bodies, and a cap on
 * alias expansion so that a "billion laughs" document is refused instead of exhausting memory.
 */
import { isAlias, isCollection, LineCounter, parseDocument, stringify, visit, YAMLError } from 'yaml';
import { assertYamlDepth } from './yaml-depth.js';
import { YamlDocumentError } from './yaml-error.js';
import { errorMessage } from './error-message.js';

/** Alias dereferences allowed per document: plenty for hand-written YAML, far below a bomb. */
const MAX_ALIAS_COUNT = 100;

function positionOf(error: YAMLError): { line?: number; column?: number } {
  const pos = error.linePos?.[0];
  return pos === undefined ? {} : { line: pos.line, column: pos.col };
}

/**
 * The tags of the YAML 1.2 core schema. The parser also resolves explicit YAML 1.1 tags (!!binary,
 * !!set, !!timestamp ...) into Buffers, Sets and Dates, which are not JSON: those are refused too.
 */
const CORE_TAGS = new Set(
  ['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((t) => `tag:yaml.org,2002:${t}`),
);

/** The first explicit tag outside the core schema, with its offset in the text. */
function foreignTag(document: ReturnType<typeof parseDocument>): { tag: string; offset: number } | undefined {
  let found: { tag: string; offset: number } | undefined;
  visit(document, {
    Node(_key, node) {
      const tag = 'tag' in node ? node.tag : undefined;
      if (tag !== undefined && !CORE_TAGS.has(tag)) {
        found = { tag, offset: node.range?.[0] ?? 0 };
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/**
 * The first mapping key that is a collection (`? [a]\n: 1`), with its offset. JSON has no such
 * key: the parser would turn it into a string and write a process warning for every such body,
 * which a client could repeat to flood the service's log.
 */
function collectionKey(document: ReturnType<typeof parseDocument>): number | undefined {
  let found: number | undefined;
  visit(document, {
    Pair(_key, pair) {
      const key = isAlias(pair.key) ? pair.key.resolve(document) : pair.key;
      if (isCollection(key)) {
        found = (pair.key as { range?: [number, number, number] } | null)?.range?.[0] ?? 0;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/** The parser's message for a person: first line, position removed (it is given apart). */
function reasonOf(error: YAMLError): string {
  // The parser's own text for this one advises a library call, which means nothing to a client.
  if (error.code === 'MULTIPLE_DOCS')
    return "the body holds more than one document; send exactly one (no '---' separator)";
  return (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
}

/**
 * Parses one YAML document; refused text throws a YamlDocumentError with the parser's message,
 * line and column.
 */
export function parseYaml(text: string): unknown {
  // Before composing, which recurses once per level (see yaml-depth.ts).
  assertYamlDepth(text);
  const lineCounter = new LineCounter();
  const document = parseDocument(text, {
    lineCounter,
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
    throw new YamlDocumentError(
      'malformed',
      `The YAML body is malformed${where}: ${reasonOf(error)}`,
      line === undefined ? {} : { line, column: column ?? 0 },
    );
  }
  const tagged = foreignTag(document);
  if (tagged !== undefined) {
    const { line, col } = lineCounter.linePos(tagged.offset);
    throw new YamlDocumentError(
      'foreign_tag',
      `The YAML body is refused at line ${line}, column ${col}: the tag '${tagged.tag}' is not allowed; only plain YAML 1.2 (core schema) is accepted.`,
      { line, column: col },
    );
  }
  const keyAt = collectionKey(document);
  if (keyAt !== undefined) {
    const { line, col } = lineCounter.linePos(keyAt);
    throw new YamlDocumentError(
      'malformed',
      `The YAML body is refused at line ${line}, column ${col}: a mapping key is a list or a map; keys must be strings (or numbers, booleans, null), as in JSON.`,
      { line, column: col },
    );
  }
  try {
    return document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (cause) {
    const message = errorMessage(cause);
    throw new YamlDocumentError('aliases', `The YAML body is refused: ${message}`);
  }
}

export function toYaml(value: unknown): string {
  return stringify(value, { version: '1.2', aliasDuplicateObjects: false, lineWidth: 0 });
}

export { YAMLError };

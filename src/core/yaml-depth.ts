/**
 * The nesting bound of documents (MAX_BODY_DEPTH, also applied to parsed JSON by platform/schemas/depth.ts) applied to YAML text before it is composed.
 * The YAML library builds its syntax tree iteratively but composes it into values recursively: a
 * flow document of ~1000 `[` (2 KB) overflowed the stack there, and the body was refused with
 * "Maximum call stack size exceeded". Walking the syntax tree with a stack of our own finds the
 * too-deep value first, and refuses it as JSON is refused: same message, pointer to the value.
 *
 * The syntax tree itself costs tens of µs a level: a body of 200,000 `[` (400 KB, within the body
 * limit) held the API's thread for 5–10 s, and one of 100,000 `- ` for about 4 s, before it was
 * refused. The lexer, which reads quotes, comments and block scalars as the parser does, finds
 * such nesting first and stops at the first level too deep; the tree is then built only of the
 * text up to it, which holds the culprit's pointer, line and column.
 */
import { CST, Lexer, LineCounter, Parser } from 'yaml';
import { YamlDocumentError } from './yaml-error.js';

/** Levels of nesting a document may have, in any body (JSON or YAML) and any settings file. */
export const MAX_BODY_DEPTH = 64;

interface Pending {
  token: CST.Token;
  /** Nesting of the collection that holds `token` (0 for a document's root). */
  depth: number;
  path: string;
}

function escape(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A key as it reads in the value (quotes resolved); collections and missing keys have none. */
function keyText(key: CST.Token | null | undefined): string {
  if (key === null || key === undefined) return '';
  if (key.type === 'alias') return key.source;
  return CST.resolveAsScalar(key)?.value ?? '';
}

function isPair(item: CST.CollectionItem): boolean {
  return item.key !== undefined || (item.sep ?? []).some((t) => t.type === 'map-value-ind');
}

/** The map's members: a collection as key (allowed by YAML) counts where its map is. */
function pushMember(stack: Pending[], item: CST.CollectionItem, depth: number, path: string): void {
  if (item.key !== null && item.key !== undefined && CST.isCollection(item.key)) {
    stack.push({ token: item.key, depth, path });
  }
  if (item.value !== undefined) {
    stack.push({ token: item.value, depth, path: `${path}/${escape(keyText(item.key))}` });
  }
}

/** The lexer's tokens that are not text of the source (document start, flow end, scalar start). */
const CONTROL_TOKENS = new Set(['\u0002', '\u0018', '\u001f']);

/**
 * Where the text certainly nests deeper than MAX_BODY_DEPTH, by what the lexer shows without a
 * tree: flow collections (`[`, `{`) open at once, or a line's run of compact sequence entries
 * (`- - - x`, each one level deeper). The offset just after the opening that goes too deep;
 * undefined when neither does (the tree's walk still judges block nesting by indentation).
 */
function certainlyTooDeep(text: string): number | undefined {
  let offset = 0;
  let flow = 0;
  let compact = 0;
  for (const token of new Lexer().lex(text)) {
    if (CONTROL_TOKENS.has(token)) continue;
    offset += token.length;
    if (token === '[' || token === '{') {
      flow++;
      if (flow > MAX_BODY_DEPTH) return offset;
    } else if (token === ']' || token === '}') flow--;
    if (token === '-' && flow === 0) {
      compact++;
      if (compact > MAX_BODY_DEPTH) return offset;
    } else if (!/^[ \t]+$/.test(token)) compact = 0;
  }
  return undefined;
}

/** Refuses YAML text nested deeper than MAX_BODY_DEPTH, with the pointer, line and column of the culprit. */
export function assertYamlDepth(text: string): void {
  const end = certainlyTooDeep(text);
  // Too deep for sure: the culprit is within the text up to `end`. Should that prefix not show it
  // (it must), the whole text is walked as before.
  if (end !== undefined) walkDepth(text.slice(0, end));
  walkDepth(text);
}

function walkDepth(text: string): void {
  const lines = new LineCounter();
  const refuse = (token: CST.Token, path: string) => {
    const { line, col } = lines.linePos(token.offset);
    return new YamlDocumentError(
      'too_deep',
      `The document is nested more than ${MAX_BODY_DEPTH} levels deep; flatten it.`,
      { path, line, column: col },
    );
  };
  for (const document of new Parser(lines.addNewLine).parse(text)) {
    if (document.type !== 'document' || document.value === undefined) continue;
    const stack: Pending[] = [{ token: document.value, depth: 0, path: '' }];
    for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
      const { token, path } = next;
      if (!CST.isCollection(token)) continue;
      const depth = next.depth + 1;
      if (depth > MAX_BODY_DEPTH) throw refuse(token, path);
      const isMap =
        token.type === 'block-map' || (token.type === 'flow-collection' && token.start.source === '{');
      token.items.forEach((item: CST.CollectionItem, index: number) => {
        if (isMap) {
          pushMember(stack, item, depth, path);
        } else if (isPair(item)) {
          // `[a: b]`: a sequence item that is a one-pair map, one level deeper.
          if (depth + 1 > MAX_BODY_DEPTH) throw refuse(item.value ?? token, `${path}/${index}`);
          pushMember(stack, item, depth + 1, `${path}/${index}`);
        } else if (item.value !== undefined) {
          stack.push({ token: item.value, depth, path: `${path}/${index}` });
        }
      });
    }
  }
}

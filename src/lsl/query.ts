/**
 * Discovery queries: liblsl evaluates the query as an XPath 1.0 boolean with the stream's `<info>`
 * element (the full document, desc included) as the context node. An empty query matches every
 * stream; one that fails to parse matches none. Resolvers do not filter answers again, so a stream
 * that answered every query would show up in everyone's filtered resolves: matching must be exact.
 */
import type { Element as XmlElement } from '@xmldom/xmldom';
import { xmlParser, xpathEngine } from './xml-libraries.js';

const CACHE_LIMIT = 256;

export class QueryMatcher {
  private readonly root: XmlElement;
  /** Query → answer: inlets repeat the same few queries every second. */
  private readonly cache = new Map<string, boolean>();

  constructor(fullXml: string) {
    const doc = new (xmlParser().DOMParser)().parseFromString(fullXml, 'text/xml');
    this.root = doc.documentElement as XmlElement;
  }

  get rootNode(): Node {
    return this.root as unknown as Node;
  }

  matches(query: string): boolean {
    const q = query.trim();
    if (q === '') return true;
    const known = this.cache.get(q);
    if (known !== undefined) return known;
    let answer = false;
    try {
      answer = xpathEngine().select(`boolean(${q})`, this.root as unknown as Node, true) === true;
    } catch {
      answer = false;
    }
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(q, answer);
    return answer;
  }
}

let probe: QueryMatcher | undefined;

/** Why a query would match no stream ever (it does not parse, or calls what XPath lacks); undefined when it is sound. */
export function queryProblem(query: string): string | undefined {
  probe ??= new QueryMatcher('<info><name>x</name><desc/></info>');
  try {
    xpathEngine().select(`boolean(${query})`, probe.rootNode, true);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

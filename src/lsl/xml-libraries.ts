/**
 * The XML parser and the XPath engine, loaded on first use: only the LSL nodes (in a stream's
 * worker) and the check of an lsl-inlet predicate need them, and bundled into the service they were
 * ~370 KB of code parsed at every start and held by an idle service (docs/performance-areas.md
 * §Start-up and idle memory).
 */
import { createRequire } from 'node:module';
import type * as Xmldom from '@xmldom/xmldom';
import type Xpath from 'xpath';

const load = createRequire(import.meta.url);
let xmldom: typeof Xmldom | undefined;
let xpath: typeof Xpath | undefined;

export function xmlParser(): typeof Xmldom {
  xmldom ??= load('@xmldom/xmldom') as typeof Xmldom;
  return xmldom;
}

export function xpathEngine(): typeof Xpath {
  xpath ??= load('xpath') as typeof Xpath;
  return xpath;
}

/**
 * Places on the head of the 10-05 system's sites (Oostenveld & Praamstra 2001: the 10-20 and
 * 10-10 names and the finer ones between them, with the 10-20 synonyms T3/T4/T5/T6 and the mastoid
 * and ear sites M1/M2/A1/A2), for any device whose channels are named so: the table is MNE's
 * `standard_1005` montage projected onto the head map's disc (sites-1005-table.ts, written by
 * scripts/sites-1005.py and checked against MNE by a test).
 */
import type { HeadPoint } from './head-positions.js';
import { SITES_1005 } from './sites-1005-table.js';

export type { HeadPoint } from './head-positions.js';

const BY_UPPER = new Map<string, HeadPoint>(
  Object.entries(SITES_1005).map(([name, [x, y]]) => [name.toUpperCase(), Object.freeze({ x, y })]),
);

/** The place of a 10-05 site named `name` (any case), or undefined when it names none. */
export function sitePosition(name: string): HeadPoint | undefined {
  return BY_UPPER.get(name.trim().toUpperCase());
}

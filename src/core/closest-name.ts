/**
 * "Did you mean": the allowed name closest to a misspelt one, for unknown-field errors. Distance is
 * the optimal string alignment distance (insertions, deletions, substitutions and swaps of two
 * neighbours, each 1) between lower-cased names, so `sampleRte`, `samplerate` and `smapleRate` all
 * find `sampleRate`. A name too far from every candidate gets no suggestion rather than a random one.
 */

/** Edit distance with adjacent transpositions (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => d[i]?.[j] ?? 0;
  for (let i = 1; i < rows; i++) {
    const row = d[i] as number[];
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, at(i - 2, j - 2) + 1);
      }
      row[j] = best;
    }
  }
  return at(rows - 1, cols - 1);
}

/**
 * The candidate closest to `name`, or undefined when none is close: at most a third of the longer
 * name's letters may differ (at least one). Ties go to the earlier candidate.
 */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  // Names of a thousand characters are not misspellings; and the distance is quadratic.
  if (name.length > 64) return undefined;
  const wanted = name.toLowerCase();
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    if (candidate === name) continue;
    const distance = editDistance(wanted, candidate.toLowerCase());
    const allowed = Math.max(1, Math.floor(Math.max(name.length, candidate.length) / 3));
    if (distance > allowed) continue;
    if (best === undefined || distance < best.distance) best = { candidate, distance };
  }
  return best?.candidate;
}

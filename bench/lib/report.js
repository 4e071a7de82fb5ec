/** Console output of the benchmarks: one line per result as it completes, then a summary table. */

function absoluteText(absolute) {
  return Object.entries(absolute)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
}

/** One result, printed as soon as it is measured. */
export function formatLine(r) {
  const missed =
    (r.missedBudgets ?? []).length > 0 ? `\n       budget missed: ${r.missedBudgets.join(', ')}` : '';
  return `${r.pass ? 'ok  ' : 'MISS'} ${r.id}${r.advisory ? ' (advisory)' : ''}: ratio ${r.ratio} (${r.threshold}) — ${r.title}\n       ${r.ratioOf}\n       ${absoluteText(r.absolute)}${missed}`;
}

/** The summary table (Markdown, so it can be pasted into docs/performance.md). */
export function formatTable(results) {
  const lines = ['| benchmark | ratio | threshold | pass |', '|---|---:|---|---|'];
  for (const r of results)
    lines.push(
      `| ${r.id} | ${r.ratio} | ${r.threshold} | ${r.pass ? 'yes' : '**no**'}${r.advisory ? ' (advisory)' : ''} |`,
    );
  return lines.join('\n');
}

/**
 * One benchmark's outcome: a ratio to a reference measured in the same run, the documented
 * threshold it is checked against (docs/performance.md), and absolute numbers for context.
 */

/**
 * @param {object} spec
 * @param {string} spec.id        stable identifier (used in the baseline JSON and the docs table)
 * @param {string} spec.title     what is measured, for a person
 * @param {number} spec.ratio     subject ÷ reference (its meaning in `spec.ratioOf`)
 * @param {string} spec.ratioOf   how the ratio is formed, e.g. "SosFilter ns ÷ naive ns"
 * @param {number} [spec.max]     pass when ratio ≤ max
 * @param {number} [spec.min]     pass when ratio ≥ min
 * @param {Record<string, number|string>} [spec.absolute] absolute numbers, units in the key names
 * @param {boolean} [spec.advisory] reported, but `--check` does not fail on it: its ratio depends
 *   on the machine's spare cores more than on the code (docs/performance.md says which and why)
 * @param {{figure: string, max: number}[]} [spec.budgets] absolute budgets of the table
 *   (p50 ≤ 0.3 ms): each figure of `absolute` named is checked too, and the result passes only
 *   when its ratio and every budget hold, so a figure over its budget is never reported as ok
 */
export function result(spec) {
  const { id, title, ratio, ratioOf, max, min, absolute = {}, advisory = false, budgets = [] } = spec;
  const okMax = max === undefined || ratio <= max;
  const okMin = min === undefined || ratio >= min;
  const ratioThreshold = max !== undefined ? `≤ ${max}` : min !== undefined ? `≥ ${min}` : 'none';
  const budgetText = budgets.map((b) => `${b.figure} ≤ ${b.max}`);
  const threshold = [ratioThreshold, ...budgetText].join('; ');
  const missedBudgets = budgets
    .filter((b) => !(Number(absolute[b.figure]) <= b.max))
    .map((b) => `${b.figure} ${round(Number(absolute[b.figure]))} > ${b.max}`);
  return {
    id,
    title,
    ratio: round(ratio),
    ratioOf,
    threshold,
    pass: Number.isFinite(ratio) && okMax && okMin && missedBudgets.length === 0,
    missedBudgets,
    advisory,
    absolute: Object.fromEntries(
      Object.entries(absolute).map(([k, v]) => [k, typeof v === 'number' ? round(v) : v]),
    ),
  };
}

/** Three significant digits (enough for numbers this noisy). */
export function round(value) {
  if (!Number.isFinite(value) || value === 0) return value;
  const digits = Math.max(0, 2 - Math.floor(Math.log10(Math.abs(value))));
  return Number(value.toFixed(Math.min(digits, 6)));
}

/**
 * Plain text tables for the human output: a header row and aligned columns, sized on the visible
 * text (colour codes do not count), numbers right-aligned.
 */
import { stripVTControlCharacters } from 'node:util';

export interface Column<R> {
  header: string;
  value: (row: R) => string;
  align?: 'left' | 'right';
  /** Styles the padded cell (a colour), once its width is settled. */
  style?: (row: R, text: string) => string;
}

/** Columns a text takes on a terminal: code points, not UTF-16 units (kΩ, µV, █ are one each). */
function width(text: string): number {
  let count = 0;
  for (const _ of stripVTControlCharacters(text)) count++;
  return count;
}

export function table<R>(
  rows: readonly R[],
  columns: readonly Column<R>[],
  header = (t: string) => t,
): string[] {
  const cells = rows.map((row) => columns.map((column) => column.value(row)));
  const widths = columns.map((column, i) =>
    Math.max(width(column.header), ...cells.map((row) => width(row[i] ?? ''))),
  );
  const pad = (text: string, i: number): string => {
    const fill = ' '.repeat(Math.max(0, (widths[i] ?? 0) - width(text)));
    return columns[i]?.align === 'right' ? fill + text : text + fill;
  };
  const lines = [
    header(
      columns
        .map((column, i) => pad(column.header, i))
        .join('  ')
        .trimEnd(),
    ),
  ];
  rows.forEach((row, r) => {
    const line = columns.map((column, i) => {
      const text = pad(cells[r]?.[i] ?? '', i);
      return column.style === undefined ? text : column.style(row, text);
    });
    lines.push(line.join('  ').trimEnd());
  });
  return lines;
}

/** Fixed decimals, or `-` for a missing value. */
export function fixed(value: number | null | undefined, digits: number): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '-' : value.toFixed(digits);
}

/**
 * A small RFC 4180 CSV reader (quoted fields, doubled quotes, CRLF or LF line ends), enough to
 * read back what ./csv-writer.ts writes. A last line without its line end (a torn write) is kept
 * only when `dropTornLastLine` is false.
 */
import { readFileSync } from 'node:fs';

/** Splits CSV text into rows of fields. */
export function parseCsv(text: string, options: { dropTornLastLine?: boolean } = {}): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (ch === '"') quoted = false;
      else field += ch;
      i++;
      continue;
    }
    if (ch === '"' && field === '') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      if (ch === '\r' && text[i + 1] === '\n') i++;
    } else field += ch;
    i++;
  }
  if ((field !== '' || row.length > 0) && options.dropTornLastLine !== true) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** Reads a CSV file of a header line and numeric rows. */
export function readCsvFile(path: string): { header: string[]; rows: number[][] } {
  const [header = [], ...rows] = parseCsv(readFileSync(path, 'utf8'), { dropTornLastLine: true });
  return { header, rows: rows.map((r) => r.map(Number)) };
}

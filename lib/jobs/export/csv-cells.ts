import Papa from 'papaparse';

/** CSV cells as papaparse writes them, formula-escaped; the columns they fill are in csv.ts. */

// papaparse's default pattern ends in `.*$`, which misses cells that contain a line break.
export const FORMULA_START = /^[=+\-@\t\r]/;
/** What makes papaparse quote a string: a quote, comma, CR, LF or BOM anywhere, a space first or last, a formula start. */
const SPECIAL = /[",\r\n\ufeff]|^[ =+\-@\t\r]| $/;

/**
 * One cell exactly as `Papa.unparse(rows, { escapeFormulae: FORMULA_START })` (papaparse 5.7.1)
 * writes it: a string starting like a formula gets a `'` in front and quotes; a string holding a
 * quote, comma, CR, LF or BOM, or starting or ending with a space, is quoted with its quotes
 * doubled; null and undefined are empty; numbers and booleans are written as they are.
 * csv.test.ts holds this against papaparse for hostile and random cells.
 */
export function csvCell(value: unknown): string {
  if (typeof value === 'string') {
    if (!SPECIAL.test(value)) return value;
    const escaped = value.includes('"') ? value.replaceAll('"', '""') : value;
    return FORMULA_START.test(value) ? `"'${escaped}"` : `"${escaped}"`;
  }
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return Papa.unparse([[value]], { escapeFormulae: FORMULA_START, newline: '\r\n' }); // dates, objects: never stored
}

/** One CSV record with its CRLF, as `Papa.unparse([cells], …) + '\r\n'` writes it. */
export function csvLine(cells: readonly unknown[]): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) line += (i ? ',' : '') + csvCell(cells[i]);
  return `${line}\r\n`;
}

/** A cell for a CSV of another delimiter: the same rules as csvCell, with that delimiter quoted instead of the comma. */
export function cellWriter(delimiter: string): (value: unknown) => string {
  if (delimiter === ',') return csvCell;
  const special = new RegExp(`["${delimiter === '|' ? '\\|' : delimiter}\\r\\n\\ufeff]|^[ =+\\-@\\t\\r]| $`);
  return (value) => {
    if (typeof value !== 'string') return csvCell(value);
    if (!special.test(value)) return value;
    const escaped = value.replaceAll('"', '""');
    return FORMULA_START.test(value) ? `"'${escaped}"` : `"${escaped}"`;
  };
}

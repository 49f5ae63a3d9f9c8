import type { ParsedList } from './parse-list';
import { toList } from './parse-list';

/** One sheet of an .xlsx workbook, its cells as the text Excel shows for them. */
export interface WorkbookSheet {
  name: string;
  rows: string[][];
}

/** A cell as text: numbers as written, booleans as TRUE/FALSE like Excel, dates as ISO dates (with the time when there is one). */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) {
    const iso = value.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.slice(0, 19).replace('T', ' ');
  }
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  return String(value);
}

/**
 * Reads every sheet of an .xlsx file in the browser with read-excel-file (MIT, maintained, no
 * network): the file never leaves the machine before the user submits it, as with CSV. Cells are
 * kept untrimmed, as the CSV path keeps them; empty rows at the end of a sheet are dropped.
 */
export async function readWorkbook(file: Blob): Promise<WorkbookSheet[]> {
  const { default: readExcelFile } = await import('read-excel-file/universal');
  const sheets = await readExcelFile(file, { trim: false });
  return sheets.map(({ sheet, data }) => ({
    name: sheet,
    rows: data.map((row) => row.map(cellText)).filter((row) => row.some((cell) => cell.trim() !== '')),
  }));
}

/** A sheet as a list, with the same header and email-column detection as a CSV. */
export function sheetList(filename: string, sheet: WorkbookSheet): ParsedList {
  return toList(
    filename,
    sheet.rows.map((row) => [...row]),
    { sheet: sheet.name },
  );
}

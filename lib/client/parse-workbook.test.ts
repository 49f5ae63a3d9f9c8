import { describe, expect, it } from 'vitest';
import { XlsxWriter } from '../jobs/export/xlsx';
import { cellText, readWorkbook, sheetList } from './parse-workbook';

function workbook(sheet: string, rows: unknown[][]): Promise<Blob> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    const writer = new XlsxWriter(
      sheet,
      (chunk, final) => {
        chunks.push(chunk);
        if (final) resolve(new Blob(chunks as BlobPart[]));
      },
      reject,
    );
    writer.rows(rows);
    writer.end();
  });
}

describe('reading an .xlsx upload in the browser', () => {
  it('finds the header and the email column as for a CSV, keeping non-ASCII cells', async () => {
    const file = await workbook('Kontakte', [
      ['Name', 'Firma', 'E-Mail-Adresse', 'Umsatz'],
      ['Jürgen Groß', 'Müller & Söhne', 'juergen@müller.de', 1200.5],
      ['  Zoë ', '', 'zoe@example.com', 0],
      [null, null, null, null],
    ]);
    const sheets = await readWorkbook(file);
    expect(sheets.map((s) => s.name)).toEqual(['Kontakte']);
    const list = sheetList('kontakte.xlsx', sheets[0]!);
    expect(list).toMatchObject({ hasHeader: true, columns: ['Name', 'Firma', 'E-Mail-Adresse', 'Umsatz'], emailColumn: 2, format: { sheet: 'Kontakte' } });
    expect(list.rows).toEqual([
      ['Jürgen Groß', 'Müller & Söhne', 'juergen@müller.de', '1200.5'],
      ['  Zoë ', '', 'zoe@example.com', '0'],
    ]);
  });

  it('writes cells as Excel shows them', () => {
    expect(cellText(new Date('2026-03-01T00:00:00Z'))).toBe('2026-03-01');
    expect(cellText(new Date('2026-03-01T14:05:00Z'))).toBe('2026-03-01 14:05:00');
    expect(cellText(true)).toBe('TRUE');
    expect(cellText(null)).toBe('');
  });
});

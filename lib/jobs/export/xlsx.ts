import { strToU8, Zip, ZipDeflate } from 'fflate';

/**
 * A one-sheet `.xlsx` workbook written as a stream: the sheet's rows are deflated into the zip as
 * they come (fflate's streaming Zip), so a million-row download keeps memory flat like the CSV.
 * Strings are inline strings (no shared-string table to hold), which also means no cell is ever a
 * formula: the CSV's `'` guard is not needed here. The smallest workbook Excel, LibreOffice and
 * read-excel-file open: content types, two relationship parts, the workbook and the sheet.
 */
export class XlsxWriter {
  private readonly zip: Zip;
  private readonly sheet: ZipDeflate;
  private rowNo = 0;

  constructor(sheetName: string, onData: (chunk: Uint8Array, final: boolean) => void, onError: (error: Error) => void) {
    this.zip = new Zip((error, chunk, final) => (error ? onError(error) : onData(chunk, final)));
    const part = (path: string, xml: string) => {
      const file = new ZipDeflate(path, { level: 6 });
      this.zip.add(file);
      file.push(strToU8(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n${xml}`), true);
    };
    part(
      '[Content_Types].xml',
      `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`,
    );
    part(
      '_rels/.rels',
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    );
    part(
      'xl/workbook.xml',
      `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="${xmlText(sheetTitle(sheetName))}" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    );
    part(
      'xl/_rels/workbook.xml.rels',
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    );
    this.sheet = new ZipDeflate('xl/worksheets/sheet1.xml', { level: 6 });
    this.zip.add(this.sheet);
    this.sheet.push(
      strToU8(
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`,
      ),
    );
  }

  /** Rows of cells: strings as text, numbers as numbers, booleans as TRUE/FALSE text as the CSV writes them, empty for null. */
  rows(rows: readonly (readonly unknown[])[]): void {
    let xml = '';
    for (const cells of rows) {
      const r = ++this.rowNo;
      xml += `<row r="${r}">`;
      for (let c = 0; c < cells.length; c++) xml += cell(cells[c], `${columnName(c)}${r}`);
      xml += '</row>';
    }
    this.sheet.push(strToU8(xml));
  }

  end(): void {
    this.sheet.push(strToU8('</sheetData></worksheet>'), true);
    this.zip.end();
  }
}

function cell(value: unknown, ref: string): string {
  if (value === null || value === undefined || value === '') return '';
  if (typeof value === 'number' && Number.isFinite(value)) return `<c r="${ref}"><v>${value}</v></c>`;
  // Excel refuses a cell over 32,767 characters
  const text = xmlText(String(value)).slice(0, 32_767);
  return `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${text}</t></is></c>`;
}

const COLUMN_NAMES: string[] = [];
/** A, B, …, Z, AA, … (cached: one per column, a million rows) */
function columnName(index: number): string {
  let name = COLUMN_NAMES[index];
  if (name) return name;
  name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return (COLUMN_NAMES[index] = name);
}

// XML 1.0 cannot hold C0 controls other than tab, LF and CR, nor U+FFFE/U+FFFF or lone surrogates.
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

function xmlText(text: string): string {
  return text.replace(NOT_XML, '\ufffd').replace(/[&<>"]/g, (ch) => ESCAPES[ch]!);
}

/** Excel's rules for a sheet name: 1-31 characters, none of : \ / ? * [ ]. */
export function sheetTitle(name: string): string {
  const clean = name
    .replace(/[:\\/?*[\]]/g, ' ')
    .trim()
    .slice(0, 31);
  return clean || 'Results';
}

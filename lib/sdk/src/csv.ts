/** RFC 4180 CSV: quoted cells (with "" for a quote, and line breaks inside), CRLF or LF, a leading BOM. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"' && cell === '') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  if (cell !== '' || row.length) {
    row.push(cell);
    rows.push(row);
  }
  return rows.filter((r) => r.some((c) => c.trim() !== ''));
}

export interface ListInput {
  emails?: string[];
  rows?: string[][];
  columns?: string[];
  email_column?: number;
}

/**
 * A CSV as a bulk request: with a header, the rows go as they are with the address column's index
 * (found by `column`, a name or 0-based index, else the first header naming an e-mail); without one
 * (the first row holds an address), the address column's cells go as `emails`.
 */
export function listFromCsv(rows: string[][], column?: string): ListInput {
  if (rows.length === 0) throw new Error('the file holds no rows');
  const first = rows[0]!;
  const headerless = first.some((cell) => cell.includes('@'));
  if (headerless) {
    const index = column !== undefined && /^\d+$/.test(column) ? Number(column) : first.findIndex((cell) => cell.includes('@'));
    return { emails: rows.map((r) => (r[index] ?? '').trim()) };
  }
  let index: number;
  if (column === undefined) index = first.findIndex((name) => /^e-?mail/i.test(name.trim()) || /e-?mail/i.test(name));
  else if (/^\d+$/.test(column)) index = Number(column);
  else index = first.findIndex((name) => name.trim().toLowerCase() === column.toLowerCase());
  if (index < 0 || index >= first.length) throw new Error(column === undefined ? 'no column named like "email": pass --column' : `no column ${column}`);
  const data = rows.slice(1);
  if (data.length === 0) throw new Error('the file holds a header and no rows');
  return { rows: data, columns: first, email_column: index };
}

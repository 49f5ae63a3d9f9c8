import Papa from 'papaparse';

/**
 * The upload's file format, sent with the job so the download opens as the upload did (the API's
 * `delimiter`, `bom`, `newline` and, for a workbook, `sheet`).
 */
export type ListFormat = { delimiter: ',' | ';' | '\t' | '|'; bom: boolean; newline: '\r\n' | '\n' } | { sheet: string };

/** A CSV, TXT or .xlsx export as the browser parsed it: the header (given or invented) and the data rows. */
export interface ParsedList {
  filename: string;
  columns: string[];
  hasHeader: boolean;
  rows: string[][];
  emailColumn: number;
  format: ListFormat;
}

const DELIMITERS = [',', ';', '\t', '|'] as const;

/** A parsed table (header row still in it) as a list: header detection, invented column names, email column. */
export function toList(filename: string, all: string[][], format: ListFormat): ParsedList {
  const hasHeader = detectHeader(all);
  const width = all.reduce((max, row) => Math.max(max, row.length), 0);
  const header = hasHeader ? (all.shift() ?? []).map((cell) => cell.trim()) : [];
  const columns = Array.from({ length: width }, (_v, i) => header[i] || `column_${i + 1}`);
  return { filename, columns, hasHeader, rows: all, emailColumn: detectEmailColumn(columns, all), format };
}

const WELL_FORMED = /^[^\s@"<>,;]+@[^\s@"<>,;]+\.[^\s@"<>,;]{2,}$/;
const EMAIL_HEADER = /^(e-?mail|e-?mail[ _-]?address|email_?addr|mail|address|courriel|correo)$/i;

export function isWellFormed(address: string | undefined): boolean {
  return address !== undefined && WELL_FORMED.test(address.trim());
}

/** A first row is a header when it holds no address but the rows under it do, or names an email column. */
export function detectHeader(rows: string[][]): boolean {
  const first = rows[0] ?? [];
  if (first.some((cell) => EMAIL_HEADER.test(cell.trim()))) return true;
  if (first.some(isWellFormed)) return false;
  return rows.slice(1, 50).some((row) => row.some(isWellFormed));
}

/** The column whose header says email, else the one with the most well-formed addresses in a sample. */
export function detectEmailColumn(columns: string[], rows: string[][]): number {
  const named = columns.findIndex((name) => EMAIL_HEADER.test(name.trim()));
  if (named >= 0) return named;
  const sample = rows.slice(0, 500);
  let best = 0;
  let bestCount = -1;
  columns.forEach((_name, index) => {
    const count = sample.filter((row) => isWellFormed(row[index])).length;
    if (count > bestCount) [best, bestCount] = [index, count];
  });
  return best;
}

/**
 * Rows whose address appeared earlier in the list, compared as the server does (lib/jobs/intake/duplicates.ts):
 * without case, the local part in NFC, the domain as A-labels, Gmail without dots. Only well-formed addresses are compared; empty cells are not duplicates.
 */
export function countDuplicates(rows: string[][], column: number): number {
  const seen = new Set<string>();
  let duplicates = 0;
  for (const row of rows) {
    const address = row[column]?.trim();
    if (!address || !isWellFormed(address)) continue;
    const at = address.lastIndexOf('@');
    let local = address.slice(0, at).normalize('NFC').toLowerCase();
    let domain = asciiDomain(address.slice(at + 1));
    if (domain === 'gmail.com' || domain === 'googlemail.com') [local, domain] = [local.replaceAll('.', ''), 'gmail.com'];
    const key = `${local}@${domain}`;
    if (seen.has(key)) duplicates++;
    else seen.add(key);
  }
  return duplicates;
}

/** A domain as its lower-case A-labels (bücher.example is xn--bcher-kva.example), as URL parsing does UTS #46. */
function asciiDomain(domain: string): string {
  if (/^[\x00-\x7f]*$/.test(domain)) return domain.toLowerCase();
  try {
    return new URL(`http://${domain}/`).hostname;
  } catch {
    return domain.toLowerCase();
  }
}

export function countWellFormed(rows: string[][], column: number): number {
  let count = 0;
  for (const row of rows) if (isWellFormed(row[column])) count += 1;
  return count;
}

/**
 * Parses the file in a Web Worker (papaparse's own), so a million-row export never blocks the page.
 * Rows arrive in chunks of about 512 KB; onProgress gets the fraction of the file read.
 */
export function parseList(file: File, onProgress: (fraction: number, rowsSoFar: number) => void): { done: Promise<ParsedList>; abort: () => void } {
  let abort = () => {};
  const done = new Promise<ParsedList>((resolve, reject) => {
    const all: string[][] = [];
    let aborted = false;
    let delimiter: string = ',';
    let newline: string = '\r\n';
    // papaparse drops a byte order mark before we see the text: look at the bytes themselves
    const bom = file
      .slice(0, 3)
      .arrayBuffer()
      .then(
        (b) => {
          const u = new Uint8Array(b);
          return u[0] === 0xef && u[1] === 0xbb && u[2] === 0xbf;
        },
        () => false,
      );
    abort = () => {
      aborted = true;
      reject(new DOMException('Parsing cancelled', 'AbortError'));
    };
    Papa.parse<string[]>(file, {
      worker: true,
      header: false,
      skipEmptyLines: 'greedy',
      chunkSize: 512 * 1024,
      chunk(results, parser) {
        if (aborted) return parser.abort();
        if (all.length === 0) [delimiter, newline] = [results.meta.delimiter, results.meta.linebreak];
        for (const row of results.data) all.push(row);
        onProgress(Math.min(results.meta.cursor / Math.max(file.size, 1), 1), all.length);
      },
      complete() {
        if (aborted) return;
        void bom.then((hasBom) => {
          if (aborted) return;
          const list = toList(file.name, all, {
            delimiter: DELIMITERS.find((known) => known === delimiter) ?? ',',
            bom: hasBom,
            newline: newline === '\n' ? '\n' : '\r\n',
          });
          onProgress(1, list.rows.length);
          resolve(list);
        });
      },
      error(error) {
        reject(error);
      },
    });
  });
  return { done, abort };
}

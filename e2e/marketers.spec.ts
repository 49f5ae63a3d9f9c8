import { readFile } from 'node:fs/promises';
import { expect, test, type Page } from '@playwright/test';
import Papa from 'papaparse';
import readExcelFile from 'read-excel-file/node';
import { strToU8, zipSync } from 'fflate';
import { XlsxWriter } from '../lib/jobs/export/xlsx';
import { sandboxOn, signUp } from './helpers';

// A German marketer's export: umlauts, a comma inside a cell, the same people typed twice.
const HEADER = ['Vorname', 'Nachname', 'E-Mail', 'Ort'];
const PEOPLE = [
  ['Jürgen', 'Groß', 'valid.juergen@beispiel.de', 'München, Altstadt'],
  ['Zoë', 'Åberg', 'valid.zoe@beispiel.de', 'Köln'],
  ['Jürgen', 'Groß', 'Valid.Juergen@Beispiel.DE', 'München, Altstadt'],
  ['Ömer', 'Şahin', 'invalid.oemer@beispiel.de', 'Düsseldorf'],
  ['Anna', 'Weiß', 'catchall.anna@beispiel.de', 'Berlin'],
  ['Zoë', 'Åberg', 'VALID.ZOE@beispiel.de', 'Köln'],
  ['Lars', 'Øst', 'valid.lars@beispiel.de', 'Hamburg'],
  ['Ida', 'Möller', 'invalid.ida@beispiel.de', 'Bremen'],
  ['Emil', 'Fuß', 'valid.emil@beispiel.de', 'Essen'],
  ['Jürgen', 'Groß', 'valid.juergen@beispiel.de', 'München, Altstadt'],
  ['Paul', 'Kühn', 'valid.paul@beispiel.de', 'Bonn'],
  ['Rita', 'Löw', 'valid.rita@beispiel.de', 'Kiel'],
];
// spreadsheet rows of the first occurrences (header = row 1): rows 3, 6 and 10 repeat rows 2, 3 and 2
const DUPLICATE_OF = ['', '', '2', '', '', '3', '', '', '', '2', '', ''];

function workbook(sheet: string, rows: string[][]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    const writer = new XlsxWriter(
      sheet,
      (chunk, final) => {
        chunks.push(chunk);
        if (final) resolve(Buffer.concat(chunks));
      },
      reject,
    );
    writer.rows(rows);
    writer.end();
  });
}

/** A workbook of several sheets, written as Excel lays one out (inline strings). */
function workbookOf(sheets: { name: string; rows: string[][] }[]): Buffer {
  const esc = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const ns = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
  const rel = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  const files: Record<string, Uint8Array> = {
    '[Content_Types].xml': strToU8(
      `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>${sheets.map((_, i) => `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`).join('')}</Types>`,
    ),
    '_rels/.rels': strToU8(
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ),
    'xl/workbook.xml': strToU8(
      `<workbook ${ns} xmlns:r="${rel}"><sheets>${sheets.map((sheet, i) => `<sheet name="${esc(sheet.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('')}</sheets></workbook>`,
    ),
    'xl/_rels/workbook.xml.rels': strToU8(
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${sheets.map((_, i) => `<Relationship Id="rId${i + 1}" Type="${rel}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`).join('')}</Relationships>`,
    ),
  };
  sheets.forEach((sheet, i) => {
    const rows = sheet.rows.map(
      (row, r) =>
        `<row r="${r + 1}">${row.map((cell, c) => `<c r="${String.fromCharCode(65 + c)}${r + 1}" t="inlineStr"><is><t>${esc(cell)}</t></is></c>`).join('')}</row>`,
    );
    files[`xl/worksheets/sheet${i + 1}.xml`] = strToU8(`<worksheet ${ns}><sheetData>${rows.join('')}</sheetData></worksheet>`);
  });
  return Buffer.from(zipSync(files));
}

async function verifyDropped(page: Page, file: { name: string; mimeType: string; buffer: Buffer }) {
  await page.getByTestId('file-input').setInputFiles(file);
  await expect(page.getByTestId('row-count')).toHaveText('12');
  await expect(page.getByTestId('duplicate-count')).toHaveText('3');
  await expect(page.getByRole('combobox', { name: 'Email column' })).toHaveValue('2');
  await page.getByRole('button', { name: 'Verify 12 rows' }).click();
  await expect(page.getByTestId('job-progress')).toHaveText('100%', { timeout: 60_000 });
  // nine people: each counted once in the summary
  await expect(page.getByTestId('summary-duplicates')).toHaveText('3');
  await expect(page.getByTestId('summary-deliverable').getByTestId('count')).toHaveText('6');
  await expect(page.getByTestId('summary-undeliverable').getByTestId('count')).toHaveText('2');
  await expect(page.getByTestId('list-quality')).toHaveText('67%');
}

async function download(page: Page, testId: string): Promise<{ name: string; bytes: Buffer }> {
  const downloading = page.waitForEvent('download');
  await page.getByTestId(testId).click();
  const file = await downloading;
  return { name: file.suggestedFilename(), bytes: await readFile((await file.path())!) };
}

test('an Excel "CSV UTF-8" export (semicolons, BOM) comes back the same way, duplicates marked', async ({ page }) => {
  await signUp(page);
  await sandboxOn(page);
  const csv = `\ufeff${[HEADER, ...PEOPLE].map((row) => row.map((cell) => (cell.includes(',') ? `"${cell}"` : cell)).join(';')).join('\r\n')}\r\n`;
  await page.getByTestId('file-input').setInputFiles({ name: 'kunden.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await expect(page.getByTestId('list-format')).toContainText('Semicolon-separated, UTF-8 with byte order mark, Windows line ends.');
  await verifyDropped(page, { name: 'kunden.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });

  const { name, bytes } = await download(page, 'download-all');
  expect(name).toMatch(/\.csv$/);
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const text = bytes.toString('utf8').slice(1);
  expect(text).toContain('\r\n');
  const table = Papa.parse<string[]>(text, { delimiter: ';', skipEmptyLines: true }).data;
  expect(table[0]!.slice(0, 5)).toEqual([...HEADER, 'email']);
  expect(table.slice(1).map((row) => row.slice(0, 4))).toEqual(PEOPLE); // every row, in order, umlauts intact
  expect(table.slice(1).map((row) => row.at(-1))).toEqual(DUPLICATE_OF);

  const safe = await download(page, 'download-safe');
  const safeRows = Papa.parse<string[]>(safe.bytes.toString('utf8').slice(1), { delimiter: ';', skipEmptyLines: true }).data.slice(1);
  expect(safeRows.map((row) => row[2])).toEqual(PEOPLE.map((p) => p[2]).filter((e) => e.toLowerCase().startsWith('valid.')));
});

test('an .xlsx export is read in the browser and downloads as the same sheet', async ({ page }) => {
  await signUp(page);
  await sandboxOn(page);
  const buffer = await workbook('Kunden', [HEADER, ...PEOPLE]);
  await page
    .getByTestId('file-input')
    .setInputFiles({ name: 'kunden.xlsx', mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', buffer });
  await expect(page.getByTestId('list-format')).toContainText('Excel workbook, sheet “Kunden”.');
  await verifyDropped(page, { name: 'kunden.xlsx', mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', buffer });

  const { name, bytes } = await download(page, 'download-all');
  expect(name).toMatch(/\.xlsx$/);
  const sheets = await readExcelFile(bytes, { trim: false });
  expect(sheets.map((s) => s.sheet)).toEqual(['Kunden']);
  const data = sheets[0]!.data;
  expect(data[0]!.slice(0, 5)).toEqual([...HEADER, 'email']);
  expect(data.slice(1).map((row) => row.slice(0, 4))).toEqual(PEOPLE);
  expect(data.slice(1).map((row) => (row.at(-1) === null ? '' : String(row.at(-1))))).toEqual(DUPLICATE_OF);

  await page.getByRole('combobox', { name: 'File format' }).selectOption('csv');
  const plain = await download(page, 'download-all');
  expect(plain.name).toMatch(/\.csv$/);
  expect(plain.bytes.toString('utf8').split('\r\n')[0]).toMatch(/^Vorname,Nachname,E-Mail,Ort,email,/);
});

test('a workbook of several sheets opens on its first and the list is picked from another', async ({ page }) => {
  await signUp(page);
  await sandboxOn(page);
  const buffer = workbookOf([
    {
      name: 'Notizen',
      rows: [
        ['Stand', 'März 2026'],
        ['Quelle', 'Messe Köln'],
      ],
    },
    { name: 'Kunden', rows: [HEADER, ...PEOPLE] },
  ]);
  await page
    .getByTestId('file-input')
    .setInputFiles({ name: 'messe.xlsx', mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', buffer });
  await expect(page.getByTestId('list-format')).toContainText('sheet “Notizen”');
  await expect(page.getByTestId('row-count')).toHaveText('2');
  await page.getByRole('combobox', { name: 'Sheet' }).selectOption('Kunden');
  await expect(page.getByTestId('row-count')).toHaveText('12');
  await expect(page.getByTestId('duplicate-count')).toHaveText('3');
  await expect(page.getByRole('combobox', { name: 'Email column' })).toHaveValue('2');
  await page.getByRole('button', { name: 'Verify 12 rows' }).click();
  await expect(page.getByTestId('job-progress')).toHaveText('100%', { timeout: 60_000 });
  const { name, bytes } = await download(page, 'download-all');
  expect(name).toMatch(/\.xlsx$/);
  const sheets = await readExcelFile(bytes, { trim: false });
  expect(sheets.map((s) => s.sheet)).toEqual(['Kunden']);
  expect(sheets[0]!.data.slice(1).map((row) => row.slice(0, 4))).toEqual(PEOPLE);
});

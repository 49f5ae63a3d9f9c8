import { readFile } from 'node:fs/promises';
import { expect, test, type Page } from '@playwright/test';
import Papa from 'papaparse';
import readExcelFile from 'read-excel-file/node';
import { XlsxWriter } from '../lib/jobs/xlsx';
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
    const writer = new XlsxWriter(sheet, (chunk, final) => {
      chunks.push(chunk);
      if (final) resolve(Buffer.concat(chunks));
    }, reject);
    writer.rows(rows);
    writer.end();
  });
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
  const csv = '\ufeff' + [HEADER, ...PEOPLE].map((row) => row.map((cell) => (cell.includes(',') ? `"${cell}"` : cell)).join(';')).join('\r\n') + '\r\n';
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

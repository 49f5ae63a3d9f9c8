import type { ListFormat, ParsedList } from '@/lib/client/parse-list';
import { cx, number, selectClass } from '../ui';

const PREVIEW_ROWS = 5;

export function ListPreview({
  list,
  emailColumn,
  onEmailColumn,
  wellFormed,
  duplicates,
}: {
  list: ParsedList;
  emailColumn: number;
  onEmailColumn: (index: number) => void;
  wellFormed: number;
  duplicates: number;
}) {
  const malformed = list.rows.length - wellFormed;
  return (
    <div className="space-y-4">
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-5">
        <Stat label="File" value={list.filename} />
        <Stat label="Rows" value={number(list.rows.length)} testId="row-count" />
        <Stat label="Well-formed addresses" value={number(wellFormed)} tone="text-emerald-700" testId="well-formed-count" />
        <Stat label="Malformed or empty" value={number(malformed)} tone={malformed ? 'text-rose-700' : undefined} />
        {/* verified and charged once; every row stays in the download */}
        <Stat label="Duplicates (checked once)" value={number(duplicates)} tone={duplicates ? 'text-amber-700' : undefined} testId="duplicate-count" />
      </dl>
      <div className="flex flex-wrap items-center gap-3">
        <label htmlFor="email-column" className="text-sm font-medium text-slate-700">
          Email column
        </label>
        <select id="email-column" value={emailColumn} onChange={(e) => onEmailColumn(Number(e.target.value))} className={cx(selectClass, 'min-w-40')}>
          {list.columns.map((name, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a file's columns are their positions (names repeat or are empty)
            <option key={index} value={index}>
              {name}
            </option>
          ))}
        </select>
        <span className="text-xs text-slate-500">{list.hasHeader ? 'Detected from the header row.' : 'No header row found; columns are numbered.'}</span>
      </div>
      <p className="text-xs text-slate-500" data-testid="list-format">
        {formatNote(list.format)} The download keeps this format; Excel and plain CSV are offered too.
      </p>
      <div className="overflow-x-auto rounded-xl ring-1 ring-slate-200">
        <table className="min-w-full text-left text-sm">
          <caption className="sr-only">
            First {PREVIEW_ROWS} rows of {list.filename}
          </caption>
          <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
            <tr>
              {list.columns.map((name, index) => (
                <th
                  // biome-ignore lint/suspicious/noArrayIndexKey: a file's columns are their positions (names repeat or are empty)
                  key={index}
                  scope="col"
                  className={cx('whitespace-nowrap px-3 py-2 font-semibold', index === emailColumn && 'bg-indigo-50 text-indigo-700')}
                >
                  {name}
                  {index === emailColumn && <span className="ml-1 normal-case">(email)</span>}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {list.rows.slice(0, PREVIEW_ROWS).map((row, r) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the preview's rows have no identity but their place in the file
              <tr key={r}>
                {list.columns.map((_name, c) => (
                  <td
                    // biome-ignore lint/suspicious/noArrayIndexKey: a file's columns are their positions
                    key={c}
                    className={cx(
                      'max-w-64 truncate whitespace-nowrap px-3 py-2 text-slate-700',
                      c === emailColumn && 'bg-indigo-50/50 font-medium text-slate-900',
                    )}
                  >
                    {row[c] ?? ''}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function Stat({ label, value, tone, testId }: { label: string; value: string; tone?: string; testId?: string }) {
  return (
    <div className="rounded-xl bg-slate-50 px-3 py-2 ring-1 ring-slate-200">
      <dt className="text-xs text-slate-500">{label}</dt>
      <dd className={cx('truncate text-lg font-semibold tabular-nums text-slate-900', tone)} title={value} data-testid={testId}>
        {value}
      </dd>
    </div>
  );
}

const DELIMITER_NAMES: Record<string, string> = { ',': 'Comma', ';': 'Semicolon', '\t': 'Tab', '|': 'Pipe' };

function formatNote(format: ListFormat): string {
  if ('sheet' in format) return `Excel workbook, sheet “${format.sheet}”.`;
  const encoding = format.bom ? 'UTF-8 with byte order mark' : 'UTF-8';
  const lines = format.newline === '\r\n' ? 'Windows line ends' : 'Unix line ends';
  return `${DELIMITER_NAMES[format.delimiter]}-separated, ${encoding}, ${lines}.`;
}

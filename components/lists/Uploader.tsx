'use client';

import { useRouter } from 'next/navigation';
import { useCallback, useMemo, useRef, useState } from 'react';
import { useDropzone } from 'react-dropzone';
import { useSubmitBulk } from '@/lib/client/hooks';
import { countDuplicates, countWellFormed, parseList, type ParsedList } from '@/lib/client/parse-list';
import { readWorkbook, sheetList, type WorkbookSheet } from '@/lib/client/parse-workbook';
import { Button, Card, ErrorNote, ProgressBar, cx, number, selectClass } from '../ui';
import { ListPreview } from './ListPreview';

const MAX_ROWS = 1_000_000;

type Stage =
  | { name: 'idle' }
  | { name: 'parsing'; filename: string; fraction: number; rows: number }
  | { name: 'ready'; list: ParsedList; sheets?: WorkbookSheet[] };

const XLSX = /\.xlsx$/i;

/** Reads a CSV/TXT export off the main thread, or an .xlsx workbook (all its sheets) in the page. */
function readUpload(
  file: File,
  onProgress: (fraction: number, rows: number) => void,
): { done: Promise<{ list: ParsedList; sheets?: WorkbookSheet[] }>; abort: () => void } {
  if (!XLSX.test(file.name)) {
    const { done, abort } = parseList(file, onProgress);
    return { done: done.then((list) => ({ list })), abort };
  }
  let aborted = false;
  const done = readWorkbook(file).then(
    (sheets) => {
      if (aborted) throw new DOMException('Parsing cancelled', 'AbortError');
      // the first sheet with rows, as Excel opens a workbook on its first sheet
      const first = sheets.find((sheet) => sheet.rows.length > 0) ?? sheets[0];
      if (!first) throw new Error('The workbook has no sheets.');
      return { list: sheetList(file.name, first), sheets };
    },
    () => {
      throw new Error('Could not read the workbook. Save it as .xlsx (Excel 2007 or later) or as CSV.');
    },
  );
  return { done, abort: () => void (aborted = true) };
}

/** Drop a CSV/TXT/.xlsx export, parse it off the main thread, pick the email column, submit it as a bulk job. */
export function Uploader() {
  const router = useRouter();
  const [stage, setStage] = useState<Stage>({ name: 'idle' });
  const [emailColumn, setEmailColumn] = useState(0);
  const [problem, setProblem] = useState<string | null>(null);
  const abortRef = useRef<() => void>(() => {});
  const submit = useSubmitBulk();

  const onDrop = useCallback(
    (accepted: File[]) => {
      const file = accepted[0];
      if (!file) return;
      abortRef.current();
      setProblem(null);
      submit.reset();
      setStage({ name: 'parsing', filename: file.name, fraction: 0, rows: 0 });
      const { done, abort } = readUpload(file, (fraction, rows) => setStage((s) => (s.name === 'parsing' ? { ...s, fraction, rows } : s)));
      abortRef.current = abort;
      done
        .then(({ list, sheets }) => {
          if (list.rows.length === 0) throw new Error('The file has no rows.');
          if (list.rows.length > MAX_ROWS) throw new Error(`The file has ${number(list.rows.length)} rows; the limit is ${number(MAX_ROWS)}.`);
          setEmailColumn(list.emailColumn);
          setStage({ name: 'ready', list, sheets });
        })
        .catch((error: unknown) => {
          if (error instanceof DOMException && error.name === 'AbortError') return;
          setProblem(error instanceof Error ? error.message : 'Could not read the file.');
          setStage({ name: 'idle' });
        });
    },
    [submit],
  );

  const { getRootProps, getInputProps, isDragActive, open } = useDropzone({
    onDrop,
    multiple: false,
    noClick: stage.name !== 'idle',
    accept: {
      'text/csv': ['.csv'],
      'text/plain': ['.txt'],
      'application/vnd.ms-excel': ['.csv'],
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': ['.xlsx'],
    },
    onDropRejected: () => setProblem('Drop a .csv, .txt or .xlsx file.'),
  });

  const list = stage.name === 'ready' ? stage.list : null;
  const sheets = stage.name === 'ready' ? stage.sheets : undefined;

  function pickSheet(name: string) {
    const sheet = sheets?.find((s) => s.name === name);
    if (!sheet || !list) return;
    const picked = sheetList(list.filename, sheet);
    setEmailColumn(picked.emailColumn);
    setStage({ name: 'ready', list: picked, sheets });
  }
  const wellFormed = useMemo(() => (list ? countWellFormed(list.rows, emailColumn) : 0), [list, emailColumn]);
  const duplicates = useMemo(() => (list ? countDuplicates(list.rows, emailColumn) : 0), [list, emailColumn]);

  function cancel() {
    abortRef.current();
    setStage({ name: 'idle' });
    submit.reset();
  }

  function send() {
    if (!list) return;
    const isPlainList = list.columns.length === 1 && !list.hasHeader;
    submit.mutate(
      // A one-column address list has nothing to keep; a CSV keeps every original column and is
      // sent once, the API reading the addresses from the chosen column. The file's format goes
      // along, so the download opens as the upload did.
      isPlainList
        ? { emails: list.rows.map((row) => (row[emailColumn] ?? '').trim()), filename: list.filename, ...list.format }
        : { rows: list.rows, columns: list.columns, email_column: emailColumn, filename: list.filename, ...list.format },
      { onSuccess: (job) => router.push(`/jobs/${job.job_id}`) },
    );
  }

  return (
    <Card
      title="Verify a list"
      description="CSV, TXT or Excel (.xlsx) exports up to 1,000,000 rows. The file is read in your browser; extra columns, the delimiter and the encoding are kept for the download."
    >
      <div
        {...getRootProps({
          'aria-label': 'Upload a CSV, TXT or Excel list of email addresses',
          className: cx(
            'rounded-xl border-2 border-dashed px-6 text-center transition-colors focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-600',
            stage.name === 'idle' ? 'cursor-pointer py-10' : 'py-4',
            isDragActive ? 'border-indigo-500 bg-indigo-50' : 'border-slate-300 bg-slate-50/60 hover:border-indigo-400',
          ),
        })}
        data-testid="dropzone"
      >
        <input {...getInputProps()} data-testid="file-input" />
        {stage.name === 'idle' ? (
          <>
            <svg aria-hidden viewBox="0 0 24 24" className="mx-auto mb-3 h-10 w-10 text-indigo-400" fill="none" stroke="currentColor" strokeWidth="1.5">
              <path strokeLinecap="round" strokeLinejoin="round" d="M12 16V4m0 0-4 4m4-4 4 4M4 16v2a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-2" />
            </svg>
            <p className="text-sm font-semibold text-slate-800">{isDragActive ? 'Drop the file here' : 'Drag a CSV, TXT or Excel file here'}</p>
            <p className="mt-1 text-sm text-slate-500">
              or <span className="font-semibold text-indigo-600">click to choose one</span>
            </p>
          </>
        ) : (
          <p className="text-sm text-slate-600">
            Drop another file to replace this one, or{' '}
            <button type="button" onClick={open} className="font-semibold text-indigo-600 underline-offset-2 hover:underline">
              choose a file
            </button>
            .
          </p>
        )}
      </div>

      <div className="mt-4 space-y-4" aria-live="polite">
        {problem && <ErrorNote error={problem} />}
        {stage.name === 'parsing' && (
          <div className="space-y-2" data-testid="parse-progress">
            <div className="flex justify-between text-sm">
              <span className="font-medium text-slate-700">Reading {stage.filename}…</span>
              <span className="tabular-nums text-slate-500">
                {number(stage.rows)} rows · {Math.round(stage.fraction * 100)}%
              </span>
            </div>
            <ProgressBar value={stage.fraction * 100} label={`Reading ${stage.filename}`} />
          </div>
        )}
        {list && (
          <>
            {sheets && sheets.length > 1 && (
              <div className="flex flex-wrap items-center gap-3">
                <label htmlFor="sheet" className="text-sm font-medium text-slate-700">
                  Sheet
                </label>
                <select
                  id="sheet"
                  value={'sheet' in list.format ? list.format.sheet : ''}
                  onChange={(e) => pickSheet(e.target.value)}
                  className={cx(selectClass, 'min-w-40')}
                >
                  {sheets.map((sheet) => (
                    <option key={sheet.name} value={sheet.name}>
                      {sheet.name} ({number(sheet.rows.length)} rows)
                    </option>
                  ))}
                </select>
              </div>
            )}
            <ListPreview list={list} emailColumn={emailColumn} onEmailColumn={setEmailColumn} wellFormed={wellFormed} duplicates={duplicates} />
            <ErrorNote error={submit.error} />
            <div className="flex flex-wrap items-center justify-end gap-3">
              <Button variant="secondary" onClick={cancel}>
                Clear
              </Button>
              <Button onClick={send} disabled={submit.isPending || wellFormed === 0}>
                {submit.isPending ? 'Submitting…' : `Verify ${number(list.rows.length)} rows`}
              </Button>
            </div>
          </>
        )}
      </div>
    </Card>
  );
}
